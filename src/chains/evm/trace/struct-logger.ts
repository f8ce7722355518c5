/**
 * geth's default tracer, the struct logger (libevm 1.13 eth/tracers/logger): one entry per op with pc, op, gas,
 * gasCost, depth and, by config, stack, memory, storage (on SLOAD/SSTORE: the contract's slots seen so far) and
 * return data. The result is `{gas, failed, returnValue, structLogs}`; returnValue is hex without 0x.
 */
import { Address, bytesToHex, setLengthLeft } from '@ethereumjs/util'
import { unprefixedHex } from '../../../runtime/hex.js'
import { Op, opName } from './opcodes.js'
import type { FrameEnd, Step, Tracer, TxEnd } from './types.js'

export interface StructLoggerConfig {
  enableMemory: boolean
  disableStack: boolean
  disableStorage: boolean
  enableReturnData: boolean
  /** most entries kept; 0 = all (geth: a negative limit keeps none) */
  limit: number
}

export const defaultStructLoggerConfig = (): StructLoggerConfig => ({
  enableMemory: false,
  disableStack: false,
  disableStorage: false,
  enableReturnData: false,
  limit: 0,
})

interface Entry {
  pc: number
  op: string
  gas: bigint
  gasCost: bigint
  depth: number
  error?: string
  stack?: string[]
  returnData?: string
  memory?: string[]
  storage?: Map<string, string>
  refund: bigint
}

const word = (w: bigint): string => w.toString(16).padStart(64, '0')

export class StructLogger implements Tracer {
  private readonly logs: Entry[] = []
  /** per contract: slot -> value, both %x of 32 bytes */
  private readonly storage = new Map<string, Map<string, string>>()
  private lastLogged = false
  private output: Uint8Array = new Uint8Array(0)
  private error: string | undefined
  private usedGas = 0n

  constructor(private readonly cfg: StructLoggerConfig) {}

  async step(s: Step): Promise<void> {
    this.lastLogged = false
    if (this.cfg.limit !== 0 && this.cfg.limit <= this.logs.length) return
    const entry: Entry = {
      pc: s.pc,
      op: opName(s.op),
      gas: s.gas,
      gasCost: s.cost,
      depth: s.depth,
      refund: s.refund,
    }
    if (!this.cfg.disableStack) entry.stack = s.stack.map((v) => `0x${v.toString(16)}`)
    if (this.cfg.enableReturnData && s.returnData.length > 0) entry.returnData = bytesToHex(s.returnData)
    if (this.cfg.enableMemory) {
      const memory: string[] = []
      for (let i = 0; i + 32 <= s.memory.length; i += 32) memory.push(unprefixedHex(s.memory.subarray(i, i + 32)))
      entry.memory = memory
    }
    const n = s.stack.length
    if (!this.cfg.disableStorage && (s.op === Op.SLOAD || s.op === Op.SSTORE)) {
      const owner = bytesToHex(s.address)
      let slots = this.storage.get(owner)
      if (slots === undefined) {
        slots = new Map()
        this.storage.set(owner, slots)
      }
      if (s.op === Op.SLOAD && n >= 1) {
        const key = s.stack[n - 1]!
        const value = await s.state.getStorage(new Address(s.address), setLengthLeft(hexBytes(key), 32))
        slots.set(word(key), unprefixedHex(setLengthLeft(value, 32)))
        entry.storage = new Map(slots)
      } else if (s.op === Op.SSTORE && n >= 2) {
        slots.set(word(s.stack[n - 1]!), word(s.stack[n - 2]!))
        entry.storage = new Map(slots)
      }
    }
    this.logs.push(entry)
    this.lastLogged = true
  }

  stepFault(error: string): void {
    const last = this.logs[this.logs.length - 1]
    if (this.lastLogged && last !== undefined) last.error = error
  }

  end(e: FrameEnd): void {
    this.output = e.output
    this.error = e.error
  }

  txEnd(e: TxEnd): void {
    this.usedGas = e.gasUsed
  }

  result(): unknown {
    const failed = this.error !== undefined
    const returnValue = failed && this.error !== 'execution reverted' ? '' : unprefixedHex(this.output)
    return {
      gas: Number(this.usedGas),
      failed,
      returnValue,
      structLogs: this.logs.map(format),
    }
  }
}

function hexBytes(v: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(word(v), 'hex'))
}

/** geth's StructLogRes field order; zero refund and absent parts are omitted. */
function format(e: Entry): Record<string, unknown> {
  const out: Record<string, unknown> = {
    pc: e.pc,
    op: e.op,
    gas: Number(e.gas),
    gasCost: Number(e.gasCost),
    depth: e.depth,
  }
  if (e.error !== undefined) out.error = e.error
  if (e.stack !== undefined) out.stack = e.stack
  if (e.returnData !== undefined) out.returnData = e.returnData
  if (e.memory !== undefined) out.memory = e.memory
  if (e.storage !== undefined) out.storage = Object.fromEntries([...e.storage].sort(([a], [b]) => (a < b ? -1 : 1)))
  if (e.refund !== 0n) out.refund = Number(e.refund)
  return out
}
