/**
 * geth's native callTracer (libevm 1.13 eth/tracers/native/call.go): the tree of call frames with gas, gasUsed,
 * input, output, error and the decoded revert reason. tracerConfig: onlyTopCall (no sub-calls), withLog (each
 * frame's logs with their position among its calls; logs of failed frames are dropped).
 */
import { bytesToHex } from '@ethereumjs/util'
import { unpackRevert } from './revert.js'
import type { FrameEnd, FrameStart, Step, Tracer, TxEnd, TxStart } from './types.js'

export interface CallTracerConfig {
  onlyTopCall: boolean
  withLog: boolean
}

interface CallLog {
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
  position: number
}

interface CallFrame {
  type: string
  from: Uint8Array
  gas: bigint
  gasUsed: bigint
  to: Uint8Array | undefined
  input: Uint8Array
  output?: Uint8Array
  error?: string
  revertReason?: string
  calls: CallFrame[]
  logs: CallLog[]
  value: bigint | undefined
}

const qty = (n: bigint): string => `0x${n.toString(16)}`
const word = (v: bigint): Uint8Array => Uint8Array.from(Buffer.from(v.toString(16).padStart(64, '0'), 'hex'))

function processOutput(f: CallFrame, end: FrameEnd): void {
  if (end.error === undefined) {
    f.output = end.output
    return
  }
  f.error = end.error
  if (f.type === 'CREATE' || f.type === 'CREATE2') f.to = undefined
  if (end.error !== 'execution reverted' || end.output.length === 0) return
  f.output = end.output
  if (end.output.length < 4) return
  const reason = unpackRevert(end.output)
  if (reason !== undefined) f.revertReason = reason
}

function clearFailedLogs(f: CallFrame, parentFailed: boolean): void {
  const failed = f.error !== undefined || parentFailed
  if (failed) f.logs = []
  for (const c of f.calls) clearFailedLogs(c, failed)
}

/** Copy of memory[offset, offset+size), zero-padded past its end (tracers.GetMemoryCopyPadded). */
function memoryPadded(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array | undefined {
  const end = offset + size
  if (end - BigInt(memory.length) > 1024n * 1024n) return undefined
  const out = new Uint8Array(Number(size))
  if (offset < BigInt(memory.length))
    out.set(memory.subarray(Number(offset), Number(end > BigInt(memory.length) ? BigInt(memory.length) : end)))
  return out
}

export class CallTracer implements Tracer {
  private readonly stack: CallFrame[] = []

  constructor(private readonly cfg: CallTracerConfig) {}

  txStart(tx: TxStart): void {
    this.stack[0] = {
      type: tx.create ? 'CREATE' : 'CALL',
      from: tx.from,
      gas: tx.gasLimit,
      gasUsed: 0n,
      to: tx.to,
      input: tx.input,
      calls: [],
      logs: [],
      value: tx.value,
    }
  }

  step(s: Step): void {
    if (!this.cfg.withLog) return
    if (this.cfg.onlyTopCall && s.depth > 1) return
    if (s.op < 0xa0 || s.op > 0xa4) return
    const size = s.op - 0xa0
    const n = s.stack.length
    if (n < 2 + size) return
    const topics: Uint8Array[] = []
    for (let i = 0; i < size; i++) topics.push(word(s.stack[n - 2 - (i + 1)]!))
    const data = memoryPadded(s.memory, s.stack[n - 1]!, s.stack[n - 2]!)
    if (data === undefined) return
    const frame = this.stack[this.stack.length - 1]!
    frame.logs.push({ address: s.address, topics, data, position: frame.calls.length })
  }

  enter(f: FrameStart): void {
    if (this.cfg.onlyTopCall) return
    this.stack.push({ ...f, gasUsed: 0n, calls: [], logs: [] })
  }

  exit(end: FrameEnd): void {
    if (this.cfg.onlyTopCall || this.stack.length <= 1) return
    const call = this.stack.pop()!
    call.gasUsed = end.gasUsed
    if (end.created !== undefined) call.to = end.created
    processOutput(call, end)
    this.stack[this.stack.length - 1]!.calls.push(call)
  }

  end(end: FrameEnd): void {
    const top = this.stack[0]
    if (top !== undefined) processOutput(top, end)
  }

  txEnd(e: TxEnd): void {
    const top = this.stack[0]
    if (top === undefined) return
    top.gasUsed = e.gasUsed
    if (this.cfg.withLog) clearFailedLogs(top, false)
  }

  result(): unknown {
    if (this.stack.length !== 1) throw new Error('incorrect number of top-level calls')
    return frameJson(this.stack[0]!)
  }
}

/** The frame in geth's field order; empty parts omitted. */
function frameJson(f: CallFrame): Record<string, unknown> {
  const out: Record<string, unknown> = {
    from: bytesToHex(f.from),
    gas: qty(f.gas),
    gasUsed: qty(f.gasUsed),
  }
  if (f.to !== undefined) out.to = bytesToHex(f.to)
  out.input = bytesToHex(f.input)
  if (f.output !== undefined && f.output.length > 0) out.output = bytesToHex(f.output)
  if (f.error !== undefined) out.error = f.error
  if (f.revertReason !== undefined && f.revertReason !== '') out.revertReason = f.revertReason
  if (f.calls.length > 0) out.calls = f.calls.map(frameJson)
  if (f.logs.length > 0)
    out.logs = f.logs.map((l) => ({
      address: bytesToHex(l.address),
      topics: l.topics.map((t) => bytesToHex(t)),
      data: bytesToHex(l.data),
      position: qty(BigInt(l.position)),
    }))
  if (f.value !== undefined) out.value = qty(f.value)
  out.type = f.type
  return out
}
