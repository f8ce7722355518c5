/**
 * A pooled transaction: the ethereumjs tx plus the values the pool compares again and again, computed once
 * (sender recovery included). `feeCap`/`tipCap` follow geth: a legacy or 2930 tx uses its gas price for both.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { type Address, toChecksumAddress } from '@ethereumjs/util'
import { prefixedHex } from '../../../runtime/hex.js'

/** geth's txSlotSize: a tx takes one slot per started 32 KiB. */
export const TX_SLOT_SIZE = 32 * 1024
/** geth's txMaxSize (4 slots, 128 KiB). */
export const TX_MAX_SIZE = 4 * TX_SLOT_SIZE

export interface PoolTx {
  readonly tx: TypedTransaction
  /** 0x-prefixed lowercase hash */
  readonly hash: string
  readonly sender: Address
  /** 0x-prefixed lowercase sender address (the pool's map key) */
  readonly from: string
  readonly nonce: bigint
  readonly gas: bigint
  readonly feeCap: bigint
  readonly tipCap: bigint
  /** gas × feeCap + value (geth's tx.Cost()) */
  readonly cost: bigint
  readonly size: number
  readonly slots: number
  /** when the pool first saw it (ms, from the pool's clock) */
  readonly time: number
  local: boolean
}

export function feeCapOf(tx: TypedTransaction): bigint {
  return 'maxFeePerGas' in tx ? tx.maxFeePerGas : tx.gasPrice
}

export function tipCapOf(tx: TypedTransaction): bigint {
  return 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : tx.gasPrice
}

export function makePoolTx(tx: TypedTransaction, sender: Address, time: number, local: boolean): PoolTx {
  const feeCap = feeCapOf(tx)
  const size = tx.serialize().length
  return {
    tx,
    hash: prefixedHex(tx.hash()),
    sender,
    from: prefixedHex(sender.bytes),
    nonce: tx.nonce,
    gas: tx.gasLimit,
    feeCap,
    tipCap: tipCapOf(tx),
    cost: tx.gasLimit * feeCap + tx.value,
    size,
    slots: Math.ceil(size / TX_SLOT_SIZE),
    time,
    local,
  }
}

/** geth's EffectiveGasTip: min(tipCap, feeCap - baseFee); negative when the fee cap is below the base fee. */
export function effectiveTip(p: Pick<PoolTx, 'feeCap' | 'tipCap'>, baseFee: bigint | undefined): bigint {
  if (baseFee === undefined) return p.tipCap
  const room = p.feeCap - baseFee
  if (room < p.tipCap) return room
  return p.tipCap
}

/** geth's priceHeap.cmp: effective tip at the base fee, then fee cap, then tip cap. */
export function comparePrice(a: PoolTx, b: PoolTx, baseFee: bigint | undefined): number {
  if (baseFee !== undefined) {
    const c = cmp(effectiveTip(a, baseFee), effectiveTip(b, baseFee))
    if (c !== 0) return c
  }
  return cmp(a.feeCap, b.feeCap) || cmp(a.tipCap, b.tipCap)
}

export function cmp(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** EIP-55 spelling, as geth's `Address.Hex()` prints it in error texts and map keys. */
export function checksum(address: string): string {
  return toChecksumAddress(address)
}
