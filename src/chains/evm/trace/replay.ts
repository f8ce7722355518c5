/**
 * Re-execution for tracing (geth's eth/state_accessor.go + tracers/api.go traceTx): the state at the start of a
 * block is its parent's; when that was pruned, the nearest kept ancestor state (at most `reexec` blocks back) is
 * rebuilt forward. The block's txs then run exactly as the executor ran them (createAvaVM, executionBlock,
 * BlockRun), untraced up to the one traced, which runs with the tracer hooked on the EVM's events.
 */
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { createTxFromBlockBodyData, type TypedTransaction } from '@ethereumjs/tx'
import { Address, bigIntToBytes, bytesToHex, generateAddress } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { parseGoDuration } from '../config/go-duration.js'
import { envOfHeader } from '../exec/block-fields.js'
import { BlockRun, createAvaVM, effectiveGasPrice } from '../exec/block-run.js'
import type { EvmChainCore } from '../exec/chain.js'
import { type AvaHeader, BLACKHOLE, decodeBlock, headerHash } from '../header.js'
import type { AvaStateManager } from '../state/state-manager.js'
import type { TraceOptions } from './config.js'
import { newTracer } from './registry.js'
import { TraceSession } from './session.js'
import type { Tracer, TxStart } from './types.js'

const DEFAULT_TIMEOUT_MS = 5000
/** replayed blocks were verified already: no capacity check */
const NO_CAPACITY = 1n << 255n

export interface TraceEnv {
  core: EvmChainCore
  /** aborts a trace when the caller goes away */
  signal?: AbortSignal
  /** rpc-trace-max-timeout in ms: the most a caller's `timeout` may ask for (0 = no cap) */
  maxTimeoutMs?: number
}

/** BLOCKHASH for a block on `parentHash`: ancestors among processing blocks, then the canonical index. */
export function blockHashes(core: EvmChainCore, parentHash: Uint8Array): EVMMockBlockchainInterface {
  const self: EVMMockBlockchainInterface = {
    getBlock: async (n: number) => {
      let hash = parentHash
      for (let p = core.executor.pending.get(bytesToHex(hash)); p !== undefined; ) {
        if (p.header.number === BigInt(n)) {
          const found = p.hash
          return { hash: () => found }
        }
        hash = p.header.parentHash
        p = core.executor.pending.get(bytesToHex(hash))
      }
      const found = await core.store.canonicalHash(BigInt(n))
      return { hash: () => found ?? new Uint8Array(32) }
    },
    putBlock: async () => {},
    shallowCopy: () => self,
  }
  return self
}

export async function blockBody(
  core: EvmChainCore,
  hash: Uint8Array,
): Promise<{ header: AvaHeader; txs: TypedTransaction[] } | undefined> {
  const rlp = await core.getBlockByHash(hash)
  if (rlp === undefined) return undefined
  const block = decodeBlock(rlp)
  return {
    header: block.header,
    txs: block.txs.map((raw: Uint8Array) => createTxFromBlockBodyData(raw, { common: core.common })),
  }
}

const isMissingState = (err: unknown): boolean => err instanceof Error && err.message.startsWith('missing trie node')

async function tryState(core: EvmChainCore, root: Uint8Array): Promise<AvaStateManager | undefined> {
  try {
    return await core.stateAt(root)
  } catch (err) {
    if (isMissingState(err)) return undefined
    throw err
  }
}

/** The state after `header` (a throw-away view), rebuilt from up to `reexec` ancestors when pruned. */
export async function stateAfter(core: EvmChainCore, header: AvaHeader, reexec: bigint): Promise<AvaStateManager> {
  const kept = await tryState(core, header.stateRoot)
  if (kept !== undefined) return kept
  const redo: AvaHeader[] = [header]
  let base: AvaStateManager | undefined
  for (let i = 0n; i < reexec && base === undefined; i++) {
    const current = redo[redo.length - 1]!
    // pruning drops the genesis state too: past it nothing can be rebuilt
    if (current.number === 0n) break
    const parent = await blockBody(core, current.parentHash)
    if (parent === undefined) throw new Error(`missing block ${bytesToHex(current.parentHash)} ${current.number - 1n}`)
    base = await tryState(core, parent.header.stateRoot)
    if (base === undefined) redo.push(parent.header)
  }
  if (base === undefined) throw new Error(`required historical state unavailable (reexec=${reexec})`)
  for (const h of redo.reverse()) {
    const body = await blockBody(core, headerHash(h))
    if (body === undefined) throw new Error(`block #${h.number} not found`)
    const run = await openRun(core, base, h)
    for (const tx of body.txs) {
      const refusal = await run.add(tx)
      if (refusal !== undefined)
        throw new Error(
          `processing block ${h.number} failed: ${refusal.kind === 'invalid' ? refusal.reason : 'no room'}`,
        )
    }
  }
  return base
}

/** A block run of `header`'s txs on `sm` (the state before them). */
export async function openRun(core: EvmChainCore, sm: AvaStateManager, header: AvaHeader): Promise<BlockRun> {
  const vm = await createAvaVM(core.common, sm, blockHashes(core, header.parentHash))
  return new BlockRun(vm, sm, { ...envOfHeader(header), capacity: NO_CAPACITY })
}

/** The state before block `header`'s txs (its parent's). */
export async function stateBefore(core: EvmChainCore, header: AvaHeader, reexec: bigint): Promise<AvaStateManager> {
  const parent = await blockBody(core, header.parentHash)
  if (parent === undefined) throw new Error(`parent ${bytesToHex(header.parentHash)} not found`)
  return stateAfter(core, parent.header, reexec)
}

/**
 * The tracer for `opts` and its deadline (geth parses the timeout per traced tx); the caller's timeout is cut to
 * `maxMs` (rpc-trace-max-timeout, Firn's; 0 = no cap).
 */
export function prepareTracer(opts: TraceOptions, maxMs = 0): { tracer: Tracer; deadline: number } {
  const tracer = newTracer(opts.tracer, opts.structLogger, opts.tracerConfig)
  let ms = DEFAULT_TIMEOUT_MS
  if (opts.timeout !== undefined) ms = Number(parseGoDuration(opts.timeout) / 1_000_000n)
  if (maxMs > 0 && ms > maxMs) ms = maxMs
  return { tracer, deadline: Date.now() + ms }
}

export async function createdAddress(sm: AvaStateManager, from: Uint8Array): Promise<Uint8Array> {
  const nonce = (await sm.getAccount(new Address(from)))?.nonce ?? 0n
  return generateAddress(from, bigIntToBytes(nonce))
}

/** Run `tx` as the next tx of `run` under the tracer; returns the tracer's result. */
export async function traceInRun(
  run: BlockRun,
  tx: TypedTransaction,
  opts: TraceOptions,
  env: TraceEnv,
): Promise<unknown> {
  const { tracer, deadline } = prepareTracer(opts, env.maxTimeoutMs)
  const from = tx.getSenderAddress().bytes
  const start: TxStart = {
    from,
    to: tx.to?.bytes ?? (await createdAddress(run.sm, from)),
    create: tx.to === undefined,
    input: tx.data,
    value: tx.value,
    gasLimit: tx.gasLimit,
    gasPrice: effectiveGasPrice(tx, run.env.baseFee),
    coinbase: BLACKHOLE,
  }
  const session = new TraceSession(run.vm as VM, tracer, { deadline, ...(env.signal ? { signal: env.signal } : {}) })
  await session.attach(start)
  const before = run.used
  let refusal: Awaited<ReturnType<BlockRun['add']>>
  try {
    refusal = await run.add(tx)
  } finally {
    session.detach()
  }
  session.check()
  if (refusal !== undefined)
    throw new Error(`tracing failed: ${refusal.kind === 'invalid' ? refusal.reason : 'no room'}`)
  const top = session.top
  await tracer.txEnd?.(
    {
      gasUsed: run.used - before,
      output: top?.output ?? new Uint8Array(0),
      ...(top?.error ? { error: top.error } : {}),
    },
    run.sm,
  )
  return tracer.result()
}

/**
 * geth's stateAtTransaction: the block run with txs 0..index-1 applied (index 0 of an empty block is allowed);
 * throws `transaction index N out of range for block 0x...` past the last tx.
 */
export async function runUpTo(
  core: EvmChainCore,
  header: AvaHeader,
  txs: TypedTransaction[],
  index: number,
  reexec: bigint,
): Promise<BlockRun> {
  if (header.number === 0n) throw new Error('no transaction in genesis')
  const sm = await stateBefore(core, header, reexec)
  const run = await openRun(core, sm, header)
  if (index === 0 && txs.length === 0) return run
  if (index >= txs.length)
    throw new Error(`transaction index ${index} out of range for block ${bytesToHex(headerHash(header))}`)
  for (const tx of txs.slice(0, index)) {
    const refusal = await run.add(tx)
    if (refusal !== undefined)
      throw new Error(
        `transaction ${bytesToHex(tx.hash())} failed: ${refusal.kind === 'invalid' ? refusal.reason : 'no room'}`,
      )
  }
  return run
}

/** Trace tx `index` of the block: txs before it run untraced on the parent state. */
export async function traceBlockTx(
  env: TraceEnv,
  header: AvaHeader,
  txs: TypedTransaction[],
  index: number,
  opts: TraceOptions,
): Promise<unknown> {
  if (header.number === 0n) throw new Error('genesis is not traceable')
  const run = await runUpTo(env.core, header, txs, index, opts.reexec)
  const tx = txs[index]
  if (tx === undefined)
    throw new Error(`transaction index ${index} out of range for block ${bytesToHex(headerHash(header))}`)
  return traceInRun(run, tx, opts, env)
}

/** Trace every tx of the block: `[{txHash, result}]`. */
export async function traceBlock(
  env: TraceEnv,
  header: AvaHeader,
  txs: TypedTransaction[],
  opts: TraceOptions,
): Promise<{ txHash: string; result: unknown }[]> {
  if (header.number === 0n) throw new Error('genesis is not traceable')
  const sm = await stateBefore(env.core, header, opts.reexec)
  const run = await openRun(env.core, sm, header)
  const results: { txHash: string; result: unknown }[] = []
  for (const tx of txs) results.push({ txHash: bytesToHex(tx.hash()), result: await traceInRun(run, tx, opts, env) })
  return results
}
