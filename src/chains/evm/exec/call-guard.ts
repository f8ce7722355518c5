/**
 * Keeps an EVM run made for a caller (eth_call, eth_estimateGas, eth_createAccessList, debug_traceCall) from
 * holding the node. Every loop in EVM code passes a JUMP or JUMPI, and every way to run more code without a
 * loop starts a message (the CALL family, CREATE): the guard wraps those two opcodes (ethereumjs'
 * `customOpcodes`, with the original handlers and fees of `getOpcodesForHF`) and listens to `beforeMessage`.
 * At each such point it throws `CallAborted` (a non-EVM error, so the run stops at once) when the deadline
 * has passed or the caller's signal aborted, and yields to the event loop (setImmediate) once SLICE_MS of
 * execution have gone by, so HTTP, WebSocket, p2p and block building are served between slices.
 * A single opcode is never split: one KECCAK256 over megabytes of memory runs to its end.
 */
import type { Common } from '@ethereumjs/common'
import type { EVMOpts, getOpcodesForHF } from '@ethereumjs/evm'
import { opcodeTable, rulesKey } from './evm-tables.js'

/** ethereumjs' AddOpcode list and opcode handler (its index does not export their names) */
type CustomOpcodes = NonNullable<EVMOpts['customOpcodes']>
type OpHandler = NonNullable<ReturnType<ReturnType<typeof getOpcodesForHF>['handlers']['get']>>

/** Longest stretch of EVM work between two turns of the event loop (ms), as block runs do. */
export const SLICE_MS = 4
/** Jumps between two clock reads. */
const JUMPS_PER_CHECK = 32

const JUMP = 0x56
const JUMPI = 0x57

/** Why a guarded run stopped early: its deadline passed, or its caller went away. */
export class CallAborted extends Error {
  constructor(readonly reason: 'timeout' | 'aborted') {
    super(reason === 'timeout' ? 'EVM call timed out' : 'EVM call aborted')
  }
}

export interface CallGuardOptions {
  /** ms on the performance.now() clock; Infinity = none */
  deadline: number
  signal?: AbortSignal | undefined
  /** the chain's lane: guarded runs take turns, one slice per event-loop turn (default: each on its own) */
  lane?: SliceLane | undefined
}

/**
 * The slices of all guarded runs of a chain, one per turn of the event loop: a run that yields waits in line and
 * the lane resumes the first in line from a setImmediate, which Node runs on the next turn (an immediate queued
 * from an immediate waits a turn). So eight looping calls cost the event loop one slice per turn, not eight.
 */
export class SliceLane {
  readonly #waiting: (() => void)[] = []
  #pumping = false

  get waiting(): number {
    return this.#waiting.length
  }

  /** runs wait in line, or one was just let go */
  get busy(): boolean {
    return this.#pumping
  }

  /** Resolves when it is this run's turn. */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve)
      if (!this.#pumping) {
        this.#pumping = true
        setImmediate(this.#pump)
      }
    })
  }

  readonly #pump = (): void => {
    this.#waiting.shift()?.()
    if (this.#waiting.length > 0) setImmediate(this.#pump)
    else this.#pumping = false
  }
}

/** Deadline from now for `timeoutMs` (0 = none). */
export const deadlineAfter = (timeoutMs: number): number =>
  timeoutMs > 0 ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY

export class CallGuard {
  readonly #deadline: number
  readonly #signal: AbortSignal | undefined
  readonly #lane: SliceLane | undefined
  #sliceStart = performance.now()
  #jumps = 0
  /** slices yielded so far (how often the run let the event loop in) */
  yields = 0

  constructor(opts: CallGuardOptions) {
    this.#deadline = opts.deadline
    this.#signal = opts.signal
    this.#lane = opts.lane
  }

  /**
   * Waits for the run's first slice when runs of the lane wait for theirs (a long run yielded), so a new run
   * takes its turn behind them; with none waiting it starts at once, as any request handler does (a run that
   * waited a turn for nothing cost a short eth_call a third of its throughput). Then checks the deadline and
   * the signal.
   */
  async begin(): Promise<void> {
    if (this.#lane?.busy) await this.#lane.wait()
    this.#sliceStart = performance.now()
    const pause = this.checkpoint()
    if (pause !== undefined) await pause
  }

  /** Throws CallAborted when the run must stop; a promise when it should let the event loop in first. */
  checkpoint(): Promise<void> | undefined {
    if (this.#signal?.aborted === true) throw new CallAborted('aborted')
    const now = performance.now()
    if (now >= this.#deadline) throw new CallAborted('timeout')
    if (now - this.#sliceStart < SLICE_MS) return undefined
    this.yields++
    const turn = this.#lane?.wait() ?? new Promise<void>((resolve) => setImmediate(resolve))
    return turn.then(() => {
      this.#sliceStart = performance.now()
    })
  }

  /** The cheap check at a jump: the clock is read every JUMPS_PER_CHECK jumps. */
  onJump(): Promise<void> | undefined {
    if (++this.#jumps < JUMPS_PER_CHECK) return undefined
    this.#jumps = 0
    return this.checkpoint()
  }

  /**
   * Guards the runs of `evm` (its state manager is the run's own view) until the returned detach: the guarded
   * JUMP and JUMPI (`guardedOpcodes`) find their guard through the view, and `beforeMessage` on its events
   * (awaited by ethereumjs: a two-argument listener) checks the guard at every message.
   */
  attach(evm: { stateManager: object; events?: GuardEvents | undefined }): () => void {
    const view = evm.stateManager
    guards.set(view, this)
    const events = evm.events
    if (events === undefined) return () => guards.delete(view)
    const listener = (_msg: unknown, resolve?: (v?: unknown) => void): void => {
      const pause = this.checkpoint()
      if (pause === undefined) resolve?.()
      else void pause.then(() => resolve?.())
    }
    events.on('beforeMessage', listener)
    return () => {
      guards.delete(view)
      events.off('beforeMessage', listener)
    }
  }
}

/** the guard of each guarded run, by the run's state view (every guarded run has a view of its own) */
const guards = new WeakMap<object, CallGuard>()

/**
 * JUMP and JUMPI with the guard's check after the jump (ethereumjs `customOpcodes`): one shared list per rule set,
 * so the EVM's opcode table is shared too (evm-tables.ts). A run without a guard jumps as ethereumjs does.
 */
export function guardedOpcodes(common: Common): CustomOpcodes {
  const key = rulesKey(common)
  let list = guardedLists.get(key)
  if (list !== undefined) return list
  const { handlers, opcodes } = opcodeTable(common, undefined)
  list = [JUMP, JUMPI].map((code) => {
    const original = handlers.get(code)
    const info = opcodes.get(code)
    if (original === undefined || info === undefined) throw new Error(`no handler for opcode ${code}`)
    return {
      opcode: code,
      opcodeName: info.name,
      baseFee: info.fee,
      logicFunction: async (runState: Parameters<OpHandler>[0], c: Common) => {
        await original(runState, c)
        const pause = guards.get(runState.stateManager)?.onJump()
        if (pause !== undefined) await pause
      },
    }
  })
  guardedLists.set(key, list)
  return list
}
const guardedLists = new Map<string, CustomOpcodes>()

interface GuardEvents {
  on(name: 'beforeMessage', fn: (data: unknown, resolve?: (v?: unknown) => void) => void): unknown
  off(name: 'beforeMessage', fn: (data: unknown, resolve?: (v?: unknown) => void) => void): unknown
}
