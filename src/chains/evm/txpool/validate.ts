/**
 * The pool's admission checks, in geth's order (core/txpool/validation.go as coreth configures it):
 * `validateBasics` needs only the tx and the head (and recovers the sender, once), `validateWithState` needs the
 * sender's nonce and balance and the sender's pending txs. Replay protection is an RPC-layer check
 * (`checkReplayProtection`), as in geth's SubmitTransaction.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { type Address, bytesToHex } from '@ethereumjs/util'
import { checksum, feeCapOf, TX_MAX_SIZE, tipCapOf } from './entry.js'
import { TxPoolError } from './errors.js'
import type { TxList } from './list.js'

/** EIP-3860 (Shanghai) init code limit. */
export const MAX_INIT_CODE_SIZE = 49_152
const UINT256_MAX = (1n << 256n) - 1n
/** The EIP-1820 registry deployment, allowed unprotected by default (coreth's default allow-list). */
export const EIP1820_DEPLOY_HASH = '0xfefb2da535e927b85fe68eb81cb2e4a5827c905f78381a01ef2322aa9b0aee8e'

export interface BasicsContext {
  chainId: bigint
  gasLimit: bigint
  /** the minimum tip (tx-pool-price-limit; 0 for local txs) */
  minTip: bigint
}

/** Stateless checks; returns the recovered sender. Throws TxPoolError with the reference text. */
export function validateBasics(tx: TypedTransaction, ctx: BasicsContext): Address {
  if (tx.type !== 0 && tx.type !== 1 && tx.type !== 2) throw new TxPoolError('txTypeNotSupported')
  const size = tx.serialize().length
  if (size > TX_MAX_SIZE) {
    throw new TxPoolError('oversizedData', `transaction size ${size}, limit ${TX_MAX_SIZE}`)
  }
  if (tx.to === undefined && tx.data.length > MAX_INIT_CODE_SIZE) {
    throw new TxPoolError('maxInitCodeSizeExceeded', `code size ${tx.data.length}, limit ${MAX_INIT_CODE_SIZE}`)
  }
  if (tx.value < 0n) throw new TxPoolError('negativeValue')
  if (ctx.gasLimit < tx.gasLimit) {
    throw new TxPoolError('gasLimit', `tx gas (${tx.gasLimit}) > current max gas (${ctx.gasLimit})`)
  }
  const feeCap = feeCapOf(tx)
  const tipCap = tipCapOf(tx)
  if (feeCap > UINT256_MAX) throw new TxPoolError('feeCapVeryHigh')
  if (tipCap > UINT256_MAX) throw new TxPoolError('tipVeryHigh')
  if (feeCap < tipCap) throw new TxPoolError('tipAboveFeeCap')
  const sender = recoverSender(tx, ctx.chainId)
  const intrinsic = tx.getIntrinsicGas()
  if (tx.gasLimit < intrinsic) {
    throw new TxPoolError(
      'intrinsicGas',
      `address ${checksum(sender.toString())} tx gas (${tx.gasLimit}), minimum needed ${intrinsic}`,
    )
  }
  if (tipCap < ctx.minTip) throw new TxPoolError('underpriced', `gas tip cap ${tipCap}, minimum needed ${ctx.minTip}`)
  return sender
}

/** The sender, or `invalid sender` for an unsigned tx, a bad signature or another chain's id. */
export function recoverSender(tx: TypedTransaction, chainId: bigint): Address {
  if (!tx.isSigned()) throw new TxPoolError('invalidSender')
  if (tx.type !== 0 ? tx.common.chainId() !== chainId : !legacyChainOk(tx.v, chainId)) {
    throw new TxPoolError('invalidSender')
  }
  try {
    return tx.getSenderAddress()
  } catch {
    throw new TxPoolError('invalidSender')
  }
}

function legacyChainOk(v: bigint | undefined, chainId: bigint): boolean {
  if (v === undefined) return false
  if (v === 27n || v === 28n) return true
  return v >= 35n && (v - 35n) / 2n === chainId
}

/** geth's `tx.Protected()`: typed txs always, legacy txs unless v is 27 or 28. */
export function isProtected(tx: TypedTransaction): boolean {
  return tx.type !== 0 || !(tx.v === 27n || tx.v === 28n)
}

export interface ReplayPolicy {
  allowUnprotectedTxs: boolean
  /** lowercase 0x hashes */
  allowUnprotectedTxHashes: readonly string[]
}

/**
 * coreth's SubmitTransaction check: an unprotected tx is refused over RPC unless allowed by config, listed by
 * hash, or a "Nick's method" deployment (nonce 0 and r == s).
 */
export function checkReplayProtection(tx: TypedTransaction, policy: ReplayPolicy): void {
  if (isProtected(tx) || policy.allowUnprotectedTxs) return
  if (policy.allowUnprotectedTxHashes.includes(bytesToHex(tx.hash()))) return
  if (tx.nonce === 0n && tx.r !== undefined && tx.r === tx.s) return
  throw new TxPoolError('unprotected')
}

export interface StateContext {
  nonce: bigint
  balance: bigint
  /** coreth's pool minimum fee cap (acp176.MinGasPrice = 1 wei) */
  minimumFee: bigint
  /** the sender's pending list, if any */
  pending: TxList | undefined
}

/** The checks against the sender's account state and pending txs (geth's ValidateTransactionWithState). */
export function validateWithState(tx: TypedTransaction, from: string, ctx: StateContext): void {
  const feeCap = feeCapOf(tx)
  if (feeCap < ctx.minimumFee) {
    throw new TxPoolError(
      'underpriced',
      `address ${checksum(from)} have gas fee cap (${feeCap}) < pool minimum fee cap (${ctx.minimumFee})`,
    )
  }
  if (ctx.nonce > tx.nonce) throw new TxPoolError('nonceTooLow', `next nonce ${ctx.nonce}, tx nonce ${tx.nonce}`)
  const balance = ctx.balance
  const cost = tx.gasLimit * feeCap + tx.value
  if (balance < cost) {
    throw new TxPoolError('insufficientFunds', `balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`)
  }
  const spent = ctx.pending?.totalCost ?? 0n
  const prev = ctx.pending?.get(tx.nonce)
  if (prev !== undefined) {
    const bump = cost - prev.cost
    const need = spent + bump
    if (balance < need) {
      throw new TxPoolError(
        'insufficientFunds',
        `balance ${balance}, queued cost ${spent}, tx bumped ${bump}, overshot ${need - balance}`,
      )
    }
  } else {
    const need = spent + cost
    if (balance < need) {
      throw new TxPoolError(
        'insufficientFunds',
        `balance ${balance}, queued cost ${spent}, tx cost ${cost}, overshot ${need - balance}`,
      )
    }
  }
}
