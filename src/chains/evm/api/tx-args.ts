/**
 * geth's TransactionArgs on the signing side (coreth internal/ethapi transaction_args.go + api.go): setDefaults
 * with the Apricot Phase 3 fee defaults, toTransaction, the `{raw, tx}` JSON of a transaction (txJSON) and the
 * RPC fee cap check (checkTxFee) with Go's `%.2f`.
 */
import {
  createAccessList2930Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  TransactionType,
  type TypedTransaction,
} from '@ethereumjs/tx'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { addressHex } from '../keystore/keystore.js'
import type { EthBackend } from './backend.js'
import { hex, qty, type TxArgs } from './hexutil.js'

/** The tip suggestion (eth_maxPriorityFeePerGas); idle chains suggest 1 wei. */
export type SuggestTip = () => Promise<bigint>

export const ZERO_ADDRESS = new Uint8Array(20)

// ---- fees (checkTxFee) ----

const WEI_PER_ETHER = 10n ** 18n

/** Go's `%.2f` of a float64: the exact value rounded half to even. */
export function goFixed2(x: number): string {
  if (Math.abs(x) >= 1e21) return `${BigInt(x)}.00`
  // toFixed takes the larger neighbour on an exact tie; ties at 2 decimals are the doubles k/8 with k odd
  if (Number.isInteger(x * 8) && !Number.isInteger(x * 4)) {
    const n = Math.floor(x * 100)
    return ((n % 2 === 0 ? n : n + 1) / 100).toFixed(2)
  }
  return x.toFixed(2)
}

/** checkTxFee: `tx fee (X ether) exceeds the configured cap (Y ether)` (cap 0 = none). */
export function checkTxFee(price: bigint, gas: bigint, cap: number): void {
  if (cap === 0) return
  const fee = price * gas
  const feeFloat = Number.parseFloat(`${fee / WEI_PER_ETHER}.${(fee % WEI_PER_ETHER).toString().padStart(18, '0')}`)
  if (feeFloat > cap)
    throw new Error(`tx fee (${goFixed2(feeFloat)} ether) exceeds the configured cap (${goFixed2(cap)} ether)`)
}

// ---- transactions: defaults, assembly and geth's JSON ----

/** TransactionArgs after setDefaults. */
export interface FilledArgs extends TxArgs {
  nonce: bigint
  gas: bigint
  value: bigint
  chainId: bigint
}

/** toTransaction: 1559 when maxFeePerGas is set, else 2930 with an access list, else legacy. */
export function toTransaction(backend: EthBackend, a: TxArgs & { nonce: bigint; gas: bigint }): TypedTransaction {
  const common = backend.core.common
  const base = {
    nonce: a.nonce,
    gasLimit: a.gas,
    ...(a.to === undefined ? {} : { to: a.to }),
    value: a.value ?? 0n,
    data: a.data ?? new Uint8Array(0),
  }
  const accessList = (a.accessList ?? []).map((t): [Uint8Array, Uint8Array[]] => [t.address, t.storageKeys])
  const chainId = a.chainId ?? backend.chainId
  if (a.maxFeePerGas !== undefined)
    return createFeeMarket1559Tx(
      { ...base, chainId, maxFeePerGas: a.maxFeePerGas, maxPriorityFeePerGas: a.maxPriorityFeePerGas, accessList },
      { common },
    )
  if (a.accessList !== undefined)
    return createAccessList2930Tx({ ...base, chainId, gasPrice: a.gasPrice, accessList }, { common })
  return createLegacyTx({ ...base, gasPrice: a.gasPrice }, { common })
}

export const feePrice = (a: TxArgs): bigint => a.maxFeePerGas ?? a.gasPrice ?? 0n

/** types.Transaction's JSON (MarshalJSON: txJSON), for {raw, tx} results. */
export function txJson(tx: TypedTransaction): Record<string, unknown> {
  const signed = tx.isSigned()
  const hash = signed ? tx.hash() : keccak_256(tx.serialize())
  const v = tx.v ?? 0n
  const to = tx.to === undefined ? null : tx.to.toString()
  const common = { nonce: qty(tx.nonce), to, gas: qty(tx.gasLimit) }
  const tail = { value: qty(tx.value), input: hex(tx.data) }
  const sig = { v: qty(v), r: qty(tx.r ?? 0n), s: qty(tx.s ?? 0n) }
  const accessList = () =>
    ('accessList' in tx ? tx.accessList : []).map(([address, keys]) => ({
      address: hex(address),
      storageKeys: keys.map((k) => hex(k)),
    }))
  if (tx.type === TransactionType.Legacy) {
    const protectedV = v !== 0n && v !== 1n && v !== 27n && v !== 28n
    return {
      type: '0x0',
      ...(protectedV ? { chainId: qty((v - 35n) / 2n) } : {}),
      ...common,
      gasPrice: qty((tx as { gasPrice: bigint }).gasPrice),
      maxPriorityFeePerGas: null,
      maxFeePerGas: null,
      ...tail,
      ...sig,
      hash: hex(hash),
    }
  }
  const chainId = qty((tx as { chainId: bigint }).chainId)
  if (tx.type === TransactionType.AccessListEIP2930)
    return {
      type: '0x1',
      chainId,
      ...common,
      gasPrice: qty((tx as { gasPrice: bigint }).gasPrice),
      maxPriorityFeePerGas: null,
      maxFeePerGas: null,
      ...tail,
      accessList: accessList(),
      ...sig,
      yParity: qty(v),
      hash: hex(hash),
    }
  const fee = tx as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  return {
    type: qty(tx.type),
    chainId,
    ...common,
    gasPrice: null,
    maxPriorityFeePerGas: qty(fee.maxPriorityFeePerGas),
    maxFeePerGas: qty(fee.maxFeePerGas),
    ...tail,
    accessList: accessList(),
    ...sig,
    yParity: qty(v),
    hash: hex(hash),
  }
}

/** The `{raw, tx}` result of the signing methods. */
export const signResult = (tx: TypedTransaction) => ({ raw: hex(tx.serialize()), tx: txJson(tx) })

/** setFeeDefaults (London is active from genesis on the C chain). */
async function setFeeDefaults(backend: EthBackend, suggestTip: SuggestTip, a: TxArgs): Promise<void> {
  if (a.gasPrice !== undefined && (a.maxFeePerGas !== undefined || a.maxPriorityFeePerGas !== undefined))
    throw new Error('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  if (a.gasPrice === undefined && a.maxFeePerGas !== undefined && a.maxPriorityFeePerGas !== undefined) {
    if (a.maxFeePerGas === 0n) throw new Error('maxFeePerGas must be non-zero')
    if (a.maxFeePerGas < a.maxPriorityFeePerGas)
      throw new Error(`maxFeePerGas (${qty(a.maxFeePerGas)}) < maxPriorityFeePerGas (${qty(a.maxPriorityFeePerGas)})`)
    return
  }
  if (a.gasPrice !== undefined) {
    if (a.gasPrice === 0n) throw new Error('gasPrice must be non-zero after london fork')
    return
  }
  // setApricotPhase3FeeDefault: the head's base fee, doubled, plus the tip
  if (a.maxPriorityFeePerGas === undefined) a.maxPriorityFeePerGas = await suggestTip()
  if (a.maxFeePerGas === undefined) {
    const baseFee = backend.latest().header.baseFee ?? backend.estimateNextBaseFee()
    a.maxFeePerGas = a.maxPriorityFeePerGas + 2n * baseFee
  }
  if (a.maxFeePerGas < a.maxPriorityFeePerGas)
    throw new Error(`maxFeePerGas (${qty(a.maxFeePerGas)}) < maxPriorityFeePerGas (${qty(a.maxPriorityFeePerGas)})`)
}

/** TransactionArgs.setDefaults (skipGasEstimation = false). */
export async function setDefaults(backend: EthBackend, suggestTip: SuggestTip, args: TxArgs): Promise<FilledArgs> {
  const a: TxArgs = { ...args }
  await setFeeDefaults(backend, suggestTip, a)
  const from = a.from ?? ZERO_ADDRESS
  a.value ??= 0n
  a.nonce ??= await backend.pool.nonce(addressHex(from))
  if (a.to === undefined && (a.data?.length ?? 0) === 0) throw new Error('contract creation without any data provided')
  if (a.gas === undefined) {
    a.gas = await backend.core.estimateGas(
      backend.latest().header,
      {
        from,
        ...(a.to === undefined ? {} : { to: a.to }),
        data: a.data ?? new Uint8Array(0),
        value: a.value,
        ...(a.gasPrice === undefined ? {} : { gasPrice: a.gasPrice }),
      },
      BigInt(backend.config.rpcGasCap),
    )
  }
  if (a.chainId !== undefined && a.chainId !== backend.chainId)
    throw new Error(`chainId does not match node's (have=${a.chainId}, want=${backend.chainId})`)
  a.chainId = backend.chainId
  return a as FilledArgs
}
