/**
 * One traced transaction: ethereumjs' EVM events (`step`, `beforeMessage`, `afterMessage`) turned into geth's
 * tracer hooks. Listeners exist only while the session is attached (ethereumjs emits `step` only when someone
 * listens). A step past the deadline throws a non-EVM error, which aborts the run; `stopReason` says why.
 */
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { SLICE_MS } from '../exec/call-guard.js'
import { gethError, isCallOp, isPreExecutionFault, Op, opName } from './opcodes.js'
import type { FrameEnd, Tracer, TxStart } from './types.js'

/** Thrown from a step listener to abort the run. */
export class TraceStopped extends Error {}

export interface TraceLimits {
  /** ms since the epoch */
  deadline: number
  signal?: AbortSignal
}

interface LastStep {
  op: number
  stackLen: number
  seq: number
}

interface Frame {
  create: boolean
  /** the executing contract, known from its first step */
  address: Uint8Array | undefined
  lastStep: LastStep | undefined
  returnData: Uint8Array
  selfdestruct?: { from: Uint8Array; to: Uint8Array; value: bigint }
}

type Resolve = (result?: unknown) => void
type Listener = (data: unknown, resolve?: Resolve) => void
interface Emitter {
  on(name: string, fn: Listener): unknown
  off(name: string, fn: Listener): unknown
}

const EMPTY = new Uint8Array(0)

const addressOf = (word: bigint): Uint8Array => setLengthLeft(bigIntToBytes(word & ((1n << 160n) - 1n)), 20)

export class TraceSession {
  private readonly frames: Frame[] = []
  private seq = 0
  private failure: unknown
  private readonly evm: EVM
  private readonly detachers: (() => void)[] = []
  /** the top call's end */
  top: FrameEnd | undefined
  stopReason: string | undefined

  constructor(
    vm: VM,
    private readonly tracer: Tracer,
    private readonly limits: TraceLimits,
  ) {
    this.evm = vm.evm as EVM
  }

  /** Tell the tracer about the tx (state before it) and start listening. */
  async attach(start: TxStart): Promise<void> {
    await this.tracer.txStart?.(start, this.evm.stateManager)
    const events = this.evm.events as unknown as Emitter
    const on = (name: string, fn: Listener) => {
      events.on(name, fn)
      this.detachers.push(() => events.off(name, fn))
    }
    // one argument: called synchronously, so its throw aborts the run; two: awaited through `resolve`
    on('step', (_step: unknown) => this.guard())
    // a long trace lets the event loop in every SLICE_MS (src/chains/evm/exec/call-guard.ts)
    on('step', (_step: unknown, resolve?: Resolve) => this.yieldSlice(resolve))
    on('step', (step: unknown, resolve?: Resolve) => this.settle(this.onStep(step as InterpreterStep), resolve))
    on('beforeMessage', (msg: unknown, resolve?: Resolve) => this.settle(this.onEnter(msg as Message), resolve))
    on('afterMessage', (res: unknown, resolve?: Resolve) => this.settle(this.onExit(res as EVMResult), resolve))
  }

  detach(): void {
    for (const off of this.detachers.splice(0)) off()
  }

  /** Rethrow a tracer failure; throw the stop reason. */
  check(): void {
    if (this.stopReason !== undefined) throw new Error(this.stopReason)
    if (this.failure !== undefined) throw this.failure
  }

  private guard(): void {
    if (this.stopReason !== undefined || Date.now() > this.limits.deadline || this.limits.signal?.aborted === true) {
      this.stopReason = 'execution timeout'
      throw new TraceStopped(this.stopReason)
    }
  }

  private sliceStart = performance.now()

  private yieldSlice(resolve?: Resolve): void {
    if (performance.now() - this.sliceStart < SLICE_MS) {
      resolve?.()
      return
    }
    setImmediate(() => {
      this.sliceStart = performance.now()
      resolve?.()
    })
  }

  private settle(work: Promise<void>, resolve?: Resolve): void {
    work.then(
      () => resolve?.(),
      (err: unknown) => {
        this.failure ??= err
        resolve?.()
      },
    )
  }

  private async onStep(ev: InterpreterStep): Promise<void> {
    const frame = this.frames[this.frames.length - 1]
    if (frame === undefined) return
    const op = ev.opcode.code
    const stack = ev.stack
    frame.address = ev.address.bytes
    frame.lastStep = { op, stackLen: stack.length, seq: ++this.seq }
    let cost = ev.opcode.dynamicFee ?? BigInt(ev.opcode.fee)
    if (isCallOp(op) && stack.length > 0) {
      // geth counts the gas passed to the callee (all but one 64th of what is left, at most the request)
      const avail = ev.gasLeft - cost
      if (avail >= 0n) {
        const most = avail - avail / 64n
        const requested = stack[stack.length - 1]!
        cost += requested < most ? requested : most
      }
    }
    if (op === Op.SELFDESTRUCT && stack.length > 0) {
      const balance = (await ev.stateManager.getAccount(ev.address))?.balance ?? 0n
      frame.selfdestruct = { from: ev.address.bytes, to: addressOf(stack[stack.length - 1]!), value: balance }
    }
    await this.tracer.step?.({
      pc: ev.pc,
      op,
      gas: ev.gasLeft,
      cost,
      depth: ev.depth + 1,
      stack,
      memory: ev.memory,
      address: ev.address.bytes,
      refund: ev.gasRefund,
      returnData: frame.returnData,
      state: ev.stateManager,
    })
  }

  private async onEnter(msg: Message): Promise<void> {
    const create = msg.to === undefined
    const parent = this.frames[this.frames.length - 1]
    this.frames.push({ create, address: undefined, lastStep: undefined, returnData: EMPTY })
    if (msg.depth === 0 || parent === undefined) return
    const op = parent.lastStep?.op ?? (create ? Op.CREATE : Op.CALL)
    await this.tracer.enter?.({
      type: opName(op),
      from: parent.address ?? msg.caller.bytes,
      to: create ? undefined : msg.codeAddress.bytes,
      // a view on the caller's memory: copy it
      input: msg.data.slice(),
      gas: msg.gasLimit,
      value: op === Op.STATICCALL ? undefined : msg.value,
    })
  }

  private async onExit(res: EVMResult): Promise<void> {
    const frame = this.frames.pop()
    if (frame === undefined) return
    const exec = res.execResult
    const ejsError = exec.exceptionError?.error
    const site = frame.lastStep
    let error: string | undefined
    if (ejsError !== undefined) {
      if (frame.create && ejsError === 'out of gas' && site?.op === Op.RETURN)
        error = 'contract creation code storage out of gas'
      else {
        error = gethError(ejsError, site)
        if (isPreExecutionFault(ejsError) && site !== undefined && site.seq === this.seq) this.tracer.stepFault?.(error)
      }
    }
    if (frame.selfdestruct !== undefined && error === undefined) {
      const sd = frame.selfdestruct
      await this.tracer.enter?.({
        type: 'SELFDESTRUCT',
        from: sd.from,
        to: sd.to,
        input: EMPTY,
        gas: 0n,
        value: sd.value,
      })
      this.tracer.exit?.({ output: EMPTY, gasUsed: 0n })
    }
    const end: FrameEnd = {
      output: exec.returnValue.slice(),
      gasUsed: exec.executionGasUsed,
      ...(error === undefined ? {} : { error }),
      ...(frame.create && error === undefined && res.createdAddress !== undefined
        ? { created: res.createdAddress.bytes }
        : {}),
    }
    const parent = this.frames[this.frames.length - 1]
    if (parent === undefined) {
      this.top = end
      this.tracer.end?.(end)
      return
    }
    // geth keeps a creation's output as return data only when it reverted
    parent.returnData = frame.create && ejsError !== 'revert' ? EMPTY : exec.returnValue
    this.tracer.exit?.(end)
  }
}
