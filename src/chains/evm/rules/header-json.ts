/**
 * JSON shapes of a header: `headerJson` for newHeads notifications (reference/cchain.md 3.6: the header's own JSON
 * encoding, field order of the reference's struct, absent optional fields as null, no totalDifficulty/size/
 * blockExtraData) and `blockJson` for eth_getBlockBy* (5.1: geth's RPCMarshalBlock plus the Avalanche fields, keys
 * sorted, absent optional fields omitted, totalDifficulty = number, uncles [], no withdrawals).
 */
import type { AvaHeader } from '../header.js'

const hex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex')
const qty = (n: bigint): string => '0x' + n.toString(16)
const optQty = (n: bigint | undefined): string | null => (n === undefined ? null : qty(n))

export function headerJson(h: AvaHeader, hash: Uint8Array): Record<string, string | null> {
  return {
    parentHash: hex(h.parentHash),
    sha3Uncles: hex(h.uncleHash),
    miner: hex(h.coinbase),
    stateRoot: hex(h.stateRoot),
    transactionsRoot: hex(h.txRoot),
    receiptsRoot: hex(h.receiptRoot),
    logsBloom: hex(h.bloom),
    difficulty: qty(h.difficulty),
    number: qty(h.number),
    gasLimit: qty(h.gasLimit),
    gasUsed: qty(h.gasUsed),
    timestamp: qty(h.time),
    extraData: hex(h.extra),
    mixHash: hex(h.mixDigest),
    nonce: hex(h.nonce),
    extDataHash: hex(h.extDataHash),
    baseFeePerGas: optQty(h.baseFee),
    extDataGasUsed: optQty(h.extDataGasUsed),
    blockGasCost: optQty(h.blockGasCost),
    blobGasUsed: optQty(h.blobGasUsed),
    excessBlobGas: optQty(h.excessBlobGas),
    parentBeaconBlockRoot: h.parentBeaconRoot === undefined ? null : hex(h.parentBeaconRoot),
    timestampMilliseconds: optQty(h.timeMilliseconds),
    minDelayExcess: optQty(h.minDelayExcess),
    hash: hex(hash),
  }
}

/** `transactions` are hashes (hex strings) or full tx objects, already shaped by the caller. */
export function blockJson(
  h: AvaHeader,
  hash: Uint8Array,
  size: bigint,
  transactions: unknown[],
  extData: Uint8Array,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    number: qty(h.number),
    hash: hex(hash),
    parentHash: hex(h.parentHash),
    nonce: hex(h.nonce),
    mixHash: hex(h.mixDigest),
    sha3Uncles: hex(h.uncleHash),
    logsBloom: hex(h.bloom),
    stateRoot: hex(h.stateRoot),
    miner: hex(h.coinbase),
    difficulty: qty(h.difficulty),
    extraData: hex(h.extra),
    gasLimit: qty(h.gasLimit),
    gasUsed: qty(h.gasUsed),
    timestamp: qty(h.time),
    transactionsRoot: hex(h.txRoot),
    receiptsRoot: hex(h.receiptRoot),
    extDataHash: hex(h.extDataHash),
    totalDifficulty: qty(h.number),
    size: qty(size),
    blockExtraData: hex(extData),
    transactions,
    uncles: [],
  }
  const optional: [string, string | undefined][] = [
    ['baseFeePerGas', h.baseFee === undefined ? undefined : qty(h.baseFee)],
    ['extDataGasUsed', h.extDataGasUsed === undefined ? undefined : qty(h.extDataGasUsed)],
    ['blockGasCost', h.blockGasCost === undefined ? undefined : qty(h.blockGasCost)],
    ['blobGasUsed', h.blobGasUsed === undefined ? undefined : qty(h.blobGasUsed)],
    ['excessBlobGas', h.excessBlobGas === undefined ? undefined : qty(h.excessBlobGas)],
    ['parentBeaconBlockRoot', h.parentBeaconRoot === undefined ? undefined : hex(h.parentBeaconRoot)],
    ['timestampMilliseconds', h.timeMilliseconds === undefined ? undefined : qty(h.timeMilliseconds)],
    ['minDelayExcess', h.minDelayExcess === undefined ? undefined : qty(h.minDelayExcess)],
  ]
  for (const [key, value] of optional) if (value !== undefined) fields[key] = value
  return Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
