/**
 * geth's native prestateTracer (libevm 1.13 eth/tracers/native/prestate.go): every account the tx touches
 * (sender, recipient, coinbase, accounts named by BALANCE, EXTCODE-, CALL- and CREATE-family ops and
 * SELFDESTRUCT, slots read or written) as it was before the tx. tracerConfig diffMode: `{post, pre}` with only
 * what changed.
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import {
  Address,
  bigIntToBytes,
  bytesToHex,
  equalsBytes,
  generateAddress,
  generateAddress2,
  setLengthLeft,
} from '@ethereumjs/util'
import { isCallOp, Op } from './opcodes.js'
import type { Step, Tracer, TxEnd, TxStart } from './types.js'

export interface PrestateTracerConfig {
  diffMode: boolean
}

interface Account {
  balance: bigint
  code: Uint8Array
  nonce: bigint
  /** slot hex -> value hex, both 0x + 64 digits */
  storage: Map<string, string>
}

const ZERO_WORD = `0x${'0'.repeat(64)}`
const word = (v: bigint): Uint8Array => setLengthLeft(bigIntToBytes(v), 32)
const addressOf = (v: bigint): Uint8Array => setLengthLeft(bigIntToBytes(v & ((1n << 160n) - 1n)), 20)
const exists = (a: Account): boolean => a.nonce > 0n || a.code.length > 0 || a.storage.size > 0 || a.balance !== 0n

export class PrestateTracer implements Tracer {
  private readonly pre = new Map<string, Account>()
  private readonly post = new Map<string, Partial<Account>>()
  private readonly created = new Set<string>()
  private readonly deleted = new Set<string>()
  private create = false
  private to = ''

  constructor(private readonly cfg: PrestateTracerConfig) {}

  private async lookupAccount(state: StateManagerInterface, addr: Uint8Array): Promise<void> {
    const key = bytesToHex(addr)
    if (this.pre.has(key)) return
    const address = new Address(addr)
    const account = await state.getAccount(address)
    this.pre.set(key, {
      balance: account?.balance ?? 0n,
      nonce: account?.nonce ?? 0n,
      code: account === undefined ? new Uint8Array(0) : await state.getCode(address),
      storage: new Map(),
    })
  }

  private async lookupStorage(state: StateManagerInterface, addr: Uint8Array, slot: Uint8Array): Promise<void> {
    await this.lookupAccount(state, addr)
    const account = this.pre.get(bytesToHex(addr))!
    const key = bytesToHex(slot)
    if (account.storage.has(key)) return
    account.storage.set(key, bytesToHex(setLengthLeft(await state.getStorage(new Address(addr), slot), 32)))
  }

  async txStart(tx: TxStart, state: StateManagerInterface): Promise<void> {
    this.create = tx.create
    this.to = bytesToHex(tx.to)
    await this.lookupAccount(state, tx.from)
    await this.lookupAccount(state, tx.to)
    await this.lookupAccount(state, tx.coinbase)
    if (tx.create) {
      // geth reads the new account after creating it: nonce 1 (EIP-158)
      const target = this.pre.get(this.to)!
      if (target.nonce === 0n) target.nonce = 1n
      if (this.cfg.diffMode) this.created.add(this.to)
    }
  }

  async step(s: Step): Promise<void> {
    const n = s.stack.length
    const top = s.stack[n - 1]
    if (top === undefined) return
    const op = s.op
    if (op === Op.SLOAD || op === Op.SSTORE) {
      await this.lookupStorage(s.state, s.address, word(top))
    } else if (
      op === Op.EXTCODECOPY ||
      op === Op.EXTCODEHASH ||
      op === Op.EXTCODESIZE ||
      op === Op.BALANCE ||
      op === Op.SELFDESTRUCT
    ) {
      await this.lookupAccount(s.state, addressOf(top))
      if (op === Op.SELFDESTRUCT) this.deleted.add(bytesToHex(s.address))
    } else if (n >= 5 && isCallOp(op)) {
      await this.lookupAccount(s.state, addressOf(s.stack[n - 2]!))
    } else if (op === Op.CREATE) {
      const nonce = (await s.state.getAccount(new Address(s.address)))?.nonce ?? 0n
      const addr = generateAddress(s.address, bigIntToBytes(nonce))
      await this.lookupAccount(s.state, addr)
      this.created.add(bytesToHex(addr))
    } else if (n >= 4 && op === Op.CREATE2) {
      const offset = s.stack[n - 2]!
      const size = s.stack[n - 3]!
      if (offset + size - BigInt(s.memory.length) > 1024n * 1024n) return
      const init = new Uint8Array(Number(size))
      if (offset < BigInt(s.memory.length)) init.set(s.memory.subarray(Number(offset), Number(offset + size)))
      const addr = generateAddress2(s.address, word(s.stack[n - 4]!), init)
      await this.lookupAccount(s.state, addr)
      this.created.add(bytesToHex(addr))
    }
  }

  end(): void {
    if (this.cfg.diffMode || !this.create) return
    const target = this.pre.get(this.to)
    if (target !== undefined && !exists(target)) this.pre.delete(this.to)
  }

  async txEnd(_e: TxEnd, state: StateManagerInterface): Promise<void> {
    if (!this.cfg.diffMode) return
    for (const [key, before] of this.pre) {
      if (this.deleted.has(key)) continue
      const address = new Address(Uint8Array.from(Buffer.from(key.slice(2), 'hex')))
      const account = await state.getAccount(address)
      const balance = account?.balance ?? 0n
      const nonce = account?.nonce ?? 0n
      const code = account === undefined ? new Uint8Array(0) : await state.getCode(address)
      const after: Partial<Account> = { storage: new Map() }
      let modified = false
      if (balance !== before.balance) {
        modified = true
        after.balance = balance
      }
      if (nonce !== before.nonce) {
        modified = true
        after.nonce = nonce
      }
      if (!equalsBytes(code, before.code)) {
        modified = true
        after.code = code
      }
      for (const [slot, value] of [...before.storage]) {
        if (value === ZERO_WORD) before.storage.delete(slot)
        const now = bytesToHex(setLengthLeft(await state.getStorage(address, hexToWord(slot)), 32))
        if (now === value) before.storage.delete(slot)
        else {
          modified = true
          if (now !== ZERO_WORD) after.storage!.set(slot, now)
        }
      }
      if (modified) this.post.set(key, after)
      else this.pre.delete(key)
    }
    for (const key of this.created) {
      const s = this.pre.get(key)
      if (s !== undefined && !exists(s)) this.pre.delete(key)
    }
  }

  result(): unknown {
    if (this.cfg.diffMode) return { post: stateJson(this.post), pre: stateJson(this.pre) }
    return stateJson(this.pre)
  }
}

const hexToWord = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'))

/** geth's `account` JSON (balance, code, nonce, storage; empty parts omitted), addresses and slots sorted. */
function stateJson(state: Map<string, Partial<Account>>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of [...state.keys()].sort()) {
    const a = state.get(key)!
    const json: Record<string, unknown> = {}
    if (a.balance !== undefined) json.balance = `0x${a.balance.toString(16)}`
    if (a.code !== undefined && a.code.length > 0) json.code = bytesToHex(a.code)
    if (a.nonce !== undefined && a.nonce !== 0n) json.nonce = Number(a.nonce)
    if (a.storage !== undefined && a.storage.size > 0)
      json.storage = Object.fromEntries([...a.storage].sort(([x], [y]) => (x < y ? -1 : 1)))
    out[key] = json
  }
  return out
}
