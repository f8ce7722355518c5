/** Receipts as the store keeps them: the consensus fields plus what eth_getTransactionReceipt derives. */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToInt, intToUnpaddedBytes } from '@ethereumjs/util'

export interface StoredLog {
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
}

export interface StoredReceipt {
  txHash: Uint8Array
  type: number
  /** 1 success, 0 failure */
  status: 0 | 1
  cumulativeGasUsed: bigint
  gasUsed: bigint
  effectiveGasPrice: bigint
  from: Uint8Array
  /** empty for a contract creation */
  to: Uint8Array
  /** empty unless the tx created a contract */
  contractAddress: Uint8Array
  bloom: Uint8Array
  logs: StoredLog[]
}

type Nested = Uint8Array | Nested[]

function receiptRaw(r: StoredReceipt): Nested {
  return [
    r.txHash,
    intToUnpaddedBytes(r.type),
    intToUnpaddedBytes(r.status),
    bigIntToUnpaddedBytes(r.cumulativeGasUsed),
    bigIntToUnpaddedBytes(r.gasUsed),
    bigIntToUnpaddedBytes(r.effectiveGasPrice),
    r.from,
    r.to,
    r.contractAddress,
    r.bloom,
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ]
}

export function encodeReceipts(receipts: StoredReceipt[]): Uint8Array {
  return RLP.encode(receipts.map(receiptRaw))
}

function bytes(x: Nested | undefined): Uint8Array {
  if (!(x instanceof Uint8Array)) throw new Error('invalid stored receipt')
  return x
}

function list(x: Nested | undefined): Nested[] {
  if (!Array.isArray(x)) throw new Error('invalid stored receipt')
  return x
}

export function decodeReceipts(data: Uint8Array): StoredReceipt[] {
  return list(RLP.decode(data) as Nested).map((item) => {
    const f = list(item)
    return {
      txHash: bytes(f[0]),
      type: bytesToInt(bytes(f[1])),
      status: bytesToInt(bytes(f[2])) === 1 ? 1 : 0,
      cumulativeGasUsed: bytesToBigInt(bytes(f[3])),
      gasUsed: bytesToBigInt(bytes(f[4])),
      effectiveGasPrice: bytesToBigInt(bytes(f[5])),
      from: bytes(f[6]),
      to: bytes(f[7]),
      contractAddress: bytes(f[8]),
      bloom: bytes(f[9]),
      logs: list(f[10]).map((l) => {
        const g = list(l)
        return { address: bytes(g[0]), topics: list(g[1]).map(bytes), data: bytes(g[2]) }
      }),
    }
  })
}
