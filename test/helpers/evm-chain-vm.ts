/**
 * Firn's EVM opened through the chain VM interface for unit tests: the local preset (EWOQ funded) as a preset
 * genesis, memory-level as the chain's store, a temporary chain directory, and an in-memory app sender that
 * records what the VM sends.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TypedTransaction } from '@ethereumjs/tx'
import { MemoryLevel } from 'memory-level'
import { presetGenesis } from '../../src/chains/evm/chain-genesis.js'
import { EvmChainVm, type EvmChainVmOptions } from '../../src/chains/evm/chain-vm.js'
import { evmPreset } from '../../src/chains/evm/rules/presets.js'
import type { AppSender, ChainDatabase, ChainVmContext } from '../../src/chains/vm.js'
import { chainIds } from '../../src/config/chain-ids.js'
import { LOCAL_GENESIS_VALIDATORS } from '../../src/network/validators.js'
import { type TransferOptions, transferSigner } from './evm-chain.js'

export const TEST_CHAIN_ID = chainIds(12345).C
export const TEST_NODE_ID = LOCAL_GENESIS_VALIDATORS[0] as string

export interface RecordingAppSender extends AppSender {
  gossiped: { nodeIds: readonly string[]; bytes: Uint8Array }[]
}

export function recordingAppSender(
  validators: readonly { nodeId: string; weight: bigint }[] = [],
  connected: string[] = [],
): RecordingAppSender {
  const gossiped: RecordingAppSender['gossiped'] = []
  return {
    gossiped,
    request: () => Promise.reject(new Error('no peers in this test')),
    gossip: (nodeIds, bytes) => void gossiped.push({ nodeIds, bytes }),
    connected: () => connected,
    validators: () => validators,
  }
}

export interface TestChainVm {
  vm: EvmChainVm
  db: ChainDatabase
  ctx: ChainVmContext
  signTransfer(opts?: TransferOptions): Promise<TypedTransaction>
  close(): Promise<void>
}

export interface TestChainVmOptions {
  /** the chain config file's text */
  config?: string
  genesis?: unknown
  now?: () => number
  app?: AppSender
  options?: EvmChainVmOptions
  dev?: boolean
  /** more of the chain's context (shared memory, chain lookup, the primary network's IDs) */
  context?: (db: ChainDatabase) => Partial<ChainVmContext>
}

export async function openTestChainVm(opts: TestChainVmOptions = {}): Promise<TestChainVm> {
  const level = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
  await level.open()
  const db = level as unknown as ChainDatabase
  const dir = await mkdtemp(join(tmpdir(), 'firn-evm-vm-'))
  let last = 0
  const now =
    opts.now ??
    (() => {
      last = Math.max(last + 1, Date.now())
      return last
    })
  const dev = opts.dev ?? true
  const quiet = { debug() {}, info() {}, warn() {}, error() {} }
  const ctx: ChainVmContext = {
    networkId: 12345,
    chainId: TEST_CHAIN_ID,
    alias: 'C',
    nodeId: TEST_NODE_ID,
    db,
    dataDir: dir,
    log: quiet,
    genesis: opts.genesis ?? presetGenesis(evmPreset(12345, { dev })),
    config: opts.config ?? '',
    dev,
    app: opts.app ?? recordingAppSender(),
    ...opts.context?.(db),
  }
  const vm = new EvmChainVm({ now, clientVersion: 'v1.14.0', ...opts.options })
  try {
    await vm.initialize(ctx)
  } catch (err) {
    await level.close()
    await rm(dir, { recursive: true, force: true })
    throw err
  }
  return {
    vm,
    db,
    ctx,
    signTransfer: transferSigner(vm.evm),
    async close() {
      await vm.shutdown()
      await level.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
