/**
 * The genesis file's `chains` list: each entry declares a chain this node runs next to the network preset's C chain.
 *
 *   { "name": "D", "vm": "evm", "genesis": { ... }, "id": "<CB58 chain ID>" (optional) }
 *
 * Rules (docs/operations.md): `name` is the chain's primary alias, 1 to 64 characters of [A-Za-z0-9_-], unique, not
 * one of the genesis aliases (P, platform, X, avm, C, evm) and not any chain's ID; `vm` is `evm`, a plugin VM's
 * alias or a CB58 VM ID, 1 to 64 characters of [A-Za-z0-9_.-]; `genesis` is the chain's genesis as a JSON value (for
 * the EVM, the reference's C-chain genesis JSON, checked here by evmPresetFromGenesis); `id`, when given, is a valid
 * CB58 ID no other chain has; otherwise the ID is derived from the declaration (chain-id.ts).
 */
import { GENESIS_CHAIN_ALIASES } from '../../config/chain-ids.js'
import { idFromString } from '../../identity/ids.js'
import { evmPresetFromGenesis } from '../evm/rules/genesis-json.js'
import { EvmGenesisError } from '../evm/rules/genesis-json-values.js'
import { EVM_ID } from '../vm-registry.js'
import { deriveChainId } from './chain-id.js'
import { fieldFail, fieldPath } from './json-node.js'

/** A chain the node runs: the composition root creates one per entry, C first. JSON-safe. */
export interface DeclaredChain {
  /** CB58 chain ID */
  chainId: string
  /** primary alias: `C` for the preset's chain, else the declared name */
  alias: string
  /** the VM as declared: `evm`, a plugin VM's alias or a CB58 VM ID */
  vm: string
  /** the chain's genesis as declared (a JSON value); the C chain's is the reference's C-chain genesis JSON */
  genesis: unknown
}

export const MAX_DECLARED_CHAINS = 64
const NAME = /^[A-Za-z0-9_-]{1,64}$/
const VM_NAME = /^[A-Za-z0-9_.-]{1,64}$/
const ENTRY_KEYS = ['name', 'vm', 'genesis', 'id']
const RESERVED_ALIASES = new Set(Object.values(GENESIS_CHAIN_ALIASES).flat())

/** true when `vm` names Firn's built-in EVM */
export const isEvm = (vm: string): boolean => vm === 'evm' || vm === EVM_ID

export interface DeclarationContext {
  networkId: number
  dev: boolean
  /** chain IDs already taken (P, X, C of the network), each with what it is */
  takenIds: ReadonlyMap<string, string>
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The `chains` value of a genesis file (a plain JSON value) -> the declared chains, in file order. */
export function parseChainDeclarations(value: unknown, ctx: DeclarationContext): DeclaredChain[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) fieldFail('chains', 'expected an array of {"name", "vm", "genesis", "id"?}')
  if (value.length > MAX_DECLARED_CHAINS)
    fieldFail('chains', `at most ${MAX_DECLARED_CHAINS} chains, got ${value.length}`)
  const out: DeclaredChain[] = []
  const names = new Set<string>()
  const ids = new Map(ctx.takenIds)
  value.forEach((entry, i) => {
    const chain = declaration(entry, `chains[${i}]`, ctx)
    const path = `chains[${i}]`
    if (names.has(chain.alias)) fieldFail(`${path}.name`, `${JSON.stringify(chain.alias)} is declared twice`)
    names.add(chain.alias)
    const holder = ids.get(chain.chainId)
    if (holder !== undefined) fieldFail(`${path}.id`, `${chain.chainId} is already the ID of ${holder}`)
    ids.set(chain.chainId, `chain ${chain.alias}`)
    out.push(chain)
  })
  out.forEach((chain, i) => {
    const holder = ids.get(chain.alias)
    if (holder !== undefined) fieldFail(`chains[${i}].name`, `${chain.alias} is the ID of ${holder}`)
  })
  return out
}

function declaration(entry: unknown, path: string, ctx: DeclarationContext): DeclaredChain {
  if (!isObject(entry)) fieldFail(path, 'expected an object {"name", "vm", "genesis", "id"?}')
  for (const key of Object.keys(entry)) {
    if (!ENTRY_KEYS.includes(key)) fieldFail(`${path}.${key}`, `unknown field (known: ${ENTRY_KEYS.join(', ')})`)
  }
  const { name, vm, genesis, id } = entry
  if (typeof name !== 'string' || !NAME.test(name)) {
    fieldFail(`${path}.name`, `expected 1 to 64 characters of A-Z, a-z, 0-9, _ and -, got ${JSON.stringify(name)}`)
  }
  if (RESERVED_ALIASES.has(name)) fieldFail(`${path}.name`, `${name} is an alias of the network's own chains`)
  if (typeof vm !== 'string' || !VM_NAME.test(vm)) {
    fieldFail(
      `${path}.vm`,
      `expected "evm", a plugin VM's alias or a CB58 VM ID (1 to 64 characters of A-Z, a-z, 0-9, _, . and -), got ${JSON.stringify(vm)}`,
    )
  }
  if (!('genesis' in entry)) fieldFail(`${path}.genesis`, "missing: the chain's genesis (a JSON value)")
  if (isEvm(vm)) {
    try {
      evmPresetFromGenesis(genesis, { networkId: ctx.networkId, dev: ctx.dev })
    } catch (err) {
      if (err instanceof EvmGenesisError) fieldFail(fieldPath(`${path}.genesis`, err.path), err.problem)
      throw err
    }
  }
  return { chainId: chainIdOf(id, `${path}.id`, ctx.networkId, name, vm, genesis), alias: name, vm, genesis }
}

function chainIdOf(id: unknown, path: string, networkId: number, name: string, vm: string, genesis: unknown): string {
  if (id === undefined) return deriveChainId(networkId, name, vm, genesis)
  if (typeof id !== 'string') fieldFail(path, `expected a CB58 chain ID string, got ${JSON.stringify(id)}`)
  try {
    idFromString(id)
  } catch (err) {
    fieldFail(path, `invalid chain ID ${JSON.stringify(id)}: ${(err as Error).message}`)
  }
  return id
}
