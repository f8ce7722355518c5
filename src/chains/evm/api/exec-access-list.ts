/**
 * eth_createAccessList (internal/ethapi AccessList with eth/tracers/logger.AccessListTracer): the call runs with
 * the list traced so far until the traced list stops changing. The tracer watches SLOAD/SSTORE slots and the
 * addresses EXTCODE*, BALANCE, SELFDESTRUCT and the CALL family touch; the sender, the recipient (or the created
 * address) and the precompiles are left out unless they have slots.
 */
import type { InterpreterStep } from '@ethereumjs/evm'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToHex, generateAddress, hexToBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { type AccessTuple, type Message, MessageError } from './exec-message.js'
import type { CallRunner } from './exec-runner.js'
import { hex, qty } from './hexutil.js'

const SLOT_OPS = new Set([0x54, 0x55])
const ADDRESS_OPS = new Set([0x3c, 0x3f, 0x3b, 0x31, 0xff])
const CALL_OPS = new Set([0xf4, 0xf1, 0xfa, 0xf2])

const hex20 = (v: bigint): string => `0x${(v & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`
const hex32 = (v: bigint): string => `0x${v.toString(16).padStart(64, '0')}`

export class AccessListTracer {
  /** address -> slots, in first-touch order */
  readonly list = new Map<string, Set<string>>()
  readonly #excluded: ReadonlySet<string>

  constructor(seed: readonly AccessTuple[], excluded: ReadonlySet<string>) {
    this.#excluded = excluded
    for (const t of seed) {
      const address = hex(t.address)
      if (!excluded.has(address)) this.#address(address)
      for (const key of t.storageKeys) this.#slot(address, hex(key))
    }
  }

  #address(a: string): void {
    if (!this.list.has(a)) this.list.set(a, new Set())
  }

  #slot(a: string, slot: string): void {
    this.#address(a)
    this.list.get(a)!.add(slot)
  }

  readonly onStep = (step: InterpreterStep): void => {
    const op = step.opcode.code
    const stack = step.stack
    const n = stack.length
    if (SLOT_OPS.has(op) && n >= 1) this.#slot(step.address.toString(), hex32(stack[n - 1]!))
    else if (ADDRESS_OPS.has(op) && n >= 1) {
      const a = hex20(stack[n - 1]!)
      if (!this.#excluded.has(a)) this.#address(a)
    } else if (CALL_OPS.has(op) && n >= 5) {
      const a = hex20(stack[n - 2]!)
      if (!this.#excluded.has(a)) this.#address(a)
    }
  }

  equal(other: AccessListTracer): boolean {
    if (this.list.size !== other.list.size) return false
    for (const [a, slots] of this.list) {
      const o = other.list.get(a)
      if (o === undefined || o.size !== slots.size) return false
      for (const s of slots) if (!o.has(s)) return false
    }
    return true
  }

  tuples(): AccessTuple[] {
    return [...this.list].map(([a, slots]) => ({
      address: hexToBytes(a as `0x${string}`),
      storageKeys: [...slots].map((s) => hexToBytes(s as `0x${string}`)),
    }))
  }

  json(): { address: string; storageKeys: string[] }[] {
    return [...this.list].map(([address, slots]) => ({ address, storageKeys: [...slots] }))
  }
}

/** The args after setDefaults that the loop needs. */
export interface FilledArgs {
  msg: Message
  nonce: bigint
  chainId: bigint
  /** legacy pricing (gasPrice given): the tx is an access-list tx, else a dynamic-fee tx */
  gasPrice: bigint | undefined
}

/** args.toTransaction().Hash(): the unsigned tx's hash (v, r, s = 0), for geth's failure text. */
function unsignedHash(a: FilledArgs, accessList: AccessTuple[]): string {
  const m = a.msg
  const n = (v: bigint) => bigIntToUnpaddedBytes(v)
  const al = accessList.map((t) => [t.address, t.storageKeys])
  const tail = [n(m.gasLimit), m.to ?? new Uint8Array(0), n(m.value), m.data, al, n(0n), n(0n), n(0n)]
  const [type, fields] =
    a.gasPrice !== undefined
      ? [1, [n(a.chainId), n(a.nonce), n(a.gasPrice), ...tail]]
      : [2, [n(a.chainId), n(a.nonce), n(m.gasTipCap), n(m.gasFeeCap), ...tail]]
  const body = RLP.encode(fields)
  const raw = new Uint8Array(body.length + 1)
  raw[0] = type
  raw.set(body, 1)
  return bytesToHex(keccak_256(raw))
}

/** The loop of geth's AccessList(); `toMessage` rebuilds the message with a given list. */
export async function createAccessList(
  runner: CallRunner,
  args: FilledArgs,
  toMessage: (accessList: AccessTuple[]) => Message,
): Promise<Record<string, unknown>> {
  const from = args.msg.from
  const to = args.msg.to ?? generateAddress(from, bigIntToUnpaddedBytes(args.nonce))
  const excluded = new Set([hex(from), hex(to), ...(await runner.precompiles()).map((p) => `0x${p}`)])
  let prev = new AccessListTracer(args.msg.accessList, excluded)
  for (;;) {
    const accessList = prev.tuples()
    const msg = toMessage(accessList)
    const tracer = new AccessListTracer(accessList, excluded)
    let res: Awaited<ReturnType<CallRunner['run']>>
    try {
      res = await runner.run(msg, tracer.onStep)
    } catch (err) {
      if (err instanceof MessageError)
        throw new Error(`failed to apply transaction: ${unsignedHash(args, accessList)} err: ${err.message}`)
      throw err
    }
    if (tracer.equal(prev)) {
      return {
        accessList: prev.json(),
        ...(res.err === undefined ? {} : { error: res.err }),
        gasUsed: qty(res.usedGas),
      }
    }
    prev = tracer
  }
}
