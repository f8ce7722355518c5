/**
 * Compiles the Solidity fixtures in test/fixtures/contracts with solc (the npm package ships the compiler as
 * WebAssembly: no download). Results are memoised per process; compiling both fixtures takes a few seconds.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'contracts')

export interface CompiledContract {
  abi: unknown[]
  /** creation bytecode, 0x-prefixed */
  bytecode: `0x${string}`
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[]
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>
}

const cache = new Map<string, CompiledContract>()

/** `compile('Counter')` compiles test/fixtures/contracts/Counter.sol and returns contract `Counter`. */
export function compile(name: string): CompiledContract {
  const hit = cache.get(name)
  if (hit) return hit
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string }
  const input = {
    language: 'Solidity',
    sources: { [`${name}.sol`]: { content: readFileSync(join(DIR, `${name}.sol`), 'utf8') } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  const c = out.contracts[`${name}.sol`]?.[name]
  if (!c) throw new Error(`no contract ${name} in ${name}.sol`)
  const compiled: CompiledContract = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }
  cache.set(name, compiled)
  return compiled
}
