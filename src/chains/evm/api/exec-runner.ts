/**
 * Where eth_call, estimateGas and createAccessList run: the state after a resolved block (plus any state
 * overrides) in a block context built from its header (plus block overrides). A run takes a VM of its root from the
 * chain's call pool (call-pool.ts: reverted between runs; a VM of its own with state overrides), so runs never see
 * each other's writes. Every run is guarded (src/chains/evm/exec/call-guard.ts): the
 * EVM timeout (rpc-evm-timeout, api-max-duration) or the request's abort signal stops it at its next jump or
 * message with geth's `execution aborted (timeout = <d>)`, and it yields to the event loop every few ms.
 */

import type { InterpreterStep } from '@ethereumjs/evm'
import { formatGoDuration } from '../config/go-duration.js'
import { CallAborted, CallGuard, deadlineAfter, type SliceLane } from '../exec/call-guard.js'
import type { AvaStateManager } from '../state/state-manager.js'
import type { EthBackend, ResolvedBlock } from './backend.js'
import { type CallPool, type CallVM, callPool } from './call-pool.js'
import { applyMessage, type ExecutionResult, type Message } from './exec-message.js'
import { applyStateOverrides, type CallEnv, callBlock, type StateOverrides } from './exec-overrides.js'
import type { BlockSelector } from './hexutil.js'

/** The state root and block context a selector names (DoCall's pending rule optional). */
export async function callTarget(
  backend: EthBackend,
  sel: BlockSelector,
  pendingAsNext: boolean,
): Promise<{ root: Uint8Array; env: CallEnv }> {
  return targetOf(backend, await backend.resolveBlock(sel), sel, pendingAsNext)
}

/** callTarget of a block already resolved from `sel` (null: not found). */
export function targetOf(
  backend: EthBackend,
  block: ResolvedBlock | null,
  sel: BlockSelector,
  pendingAsNext: boolean,
): { root: Uint8Array; env: CallEnv } {
  if (block === null) throw new Error(sel.kind === 'hash' ? 'header for hash not found' : 'header not found')
  const h = block.header
  const env: CallEnv = {
    parentHash: h.parentHash,
    number: h.number,
    time: h.time,
    gasLimit: h.gasLimit,
    baseFee: h.baseFee,
    coinbase: h.coinbase,
    difficulty: h.difficulty,
  }
  if (pendingAsNext && sel.kind === 'tag' && sel.tag === 'pending') {
    // as if run in the next block: now, number + 1, the estimated base fee
    env.parentHash = block.hash
    env.number = h.number + 1n
    env.time = BigInt(Math.floor(backend.now() / 1000))
    env.baseFee = backend.estimateNextBaseFee()
  }
  return { root: h.stateRoot, env }
}

export interface RunLimits {
  /** the EVM timeout in ms (rpc-evm-timeout, api-max-duration); 0 = none */
  timeoutMs: number
  signal?: AbortSignal
  /** the chain's lane of guarded runs (call-guard.ts) */
  lane?: SliceLane
}

export class CallRunner {
  readonly #backend: EthBackend
  readonly #root: Uint8Array
  readonly #env: CallEnv
  readonly #overrides: StateOverrides | undefined
  readonly #limits: RunLimits
  readonly #deadline: number
  readonly #pool: CallPool
  #spare: CallVM | undefined

  constructor(
    backend: EthBackend,
    root: Uint8Array,
    env: CallEnv,
    overrides: StateOverrides | undefined,
    limits: RunLimits,
  ) {
    this.#backend = backend
    this.#root = root
    this.#env = env
    this.#overrides = overrides
    this.#limits = limits
    this.#deadline = deadlineAfter(limits.timeoutMs)
    this.#pool = callPool(backend.core)
  }

  get env(): CallEnv {
    return this.#env
  }

  /** Open the first state (overrides applied): their errors come before anything else, as in geth. */
  async open(): Promise<AvaStateManager> {
    this.#spare ??= await this.#vm()
    return this.#spare.sm
  }

  /** a pooled VM at the root, or with overrides a VM over a view of its own */
  async #vm(): Promise<CallVM> {
    if (this.#overrides === undefined) return this.#pool.take(this.#root)
    const view = await this.#backend.core.stateAt(this.#root)
    await applyStateOverrides(view, this.#overrides)
    return this.#pool.make(view)
  }

  #abortError(): Error {
    return new Error(`execution aborted (timeout = ${formatGoDuration(BigInt(this.#limits.timeoutMs) * 1_000_000n)})`)
  }

  /** The precompile addresses of the rules calls run under (unprefixed lowercase hex). */
  async precompiles(): Promise<string[]> {
    await this.open()
    const keys = this.#spare?.vm.evm.precompiles.keys() ?? []
    return [...keys].map((a) => a.replace(/^0x/, '').toLowerCase())
  }

  /** Run `msg` under the guard (deadline, signal, slices); MessageError (pre-execution failures) propagates. */
  async run(msg: Message, onStep?: (step: InterpreterStep) => void): Promise<ExecutionResult> {
    const guard = new CallGuard({ deadline: this.#deadline, signal: this.#limits.signal, lane: this.#limits.lane })
    try {
      // its turn; throws at once when the deadline passed during an earlier run (estimateGas) or the caller left
      await guard.begin()
      const entry = this.#spare ?? (await this.#vm())
      this.#spare = undefined
      const detach = guard.attach(entry.vm.evm)
      try {
        const block = callBlock(entry.vm.common, this.#env)
        return await applyMessage(entry.vm, msg, {
          block,
          noBaseFee: true,
          ...(onStep === undefined ? {} : { onStep }),
        })
      } finally {
        detach()
        await this.#pool.give(entry)
      }
    } catch (err) {
      if (err instanceof CallAborted) throw this.#abortError()
      throw err
    }
  }
}
