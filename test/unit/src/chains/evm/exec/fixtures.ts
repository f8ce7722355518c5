/** Shared set-up for the executor tests: a genesis, funded keys, signed txs. */

import type { Common } from '@ethereumjs/common'
import { createTx, type TypedTransaction } from '@ethereumjs/tx'
import {
  type Address,
  bytesToHex,
  createAddressFromPrivateKey,
  hexToBytes,
  KECCAK256_RLP,
  KECCAK256_RLP_ARRAY,
} from '@ethereumjs/util'
import type { Genesis } from '../../../../../../src/chains/evm/exec/chain.js'
import type { GenesisAlloc } from '../../../../../../src/chains/evm/exec/genesis-state.js'
import { type AvaHeader, BLACKHOLE, EMPTY_EXT_DATA_HASH } from '../../../../../../src/chains/evm/header.js'

export const CHAIN_ID = 43112n
export const BASE_FEE = 5n

export function key(i: number): Uint8Array {
  const k = new Uint8Array(32)
  k[31] = i + 1
  k[0] = 0x11
  return k
}

export function addressOf(i: number): Address {
  return createAddressFromPrivateKey(key(i))
}

export function genesisHeader(): AvaHeader {
  return {
    parentHash: new Uint8Array(32),
    uncleHash: KECCAK256_RLP_ARRAY,
    coinbase: BLACKHOLE,
    stateRoot: new Uint8Array(32),
    txRoot: KECCAK256_RLP,
    receiptRoot: KECCAK256_RLP,
    bloom: new Uint8Array(256),
    difficulty: 0n,
    number: 0n,
    gasLimit: 10_000_000n,
    gasUsed: 0n,
    time: 0n,
    extra: new Uint8Array(0),
    mixDigest: new Uint8Array(32),
    nonce: new Uint8Array(8),
    extDataHash: EMPTY_EXT_DATA_HASH,
    baseFee: BASE_FEE,
  }
}

export function genesis(senders: number, extra: GenesisAlloc = {}): Genesis {
  const alloc: GenesisAlloc = { ...extra }
  for (let i = 0; i < senders; i++) alloc[addressOf(i).toString()] = { balance: 10n ** 24n }
  return { header: genesisHeader(), alloc }
}

export function transfer(
  common: Common,
  from: number,
  nonce: bigint,
  to: Uint8Array,
  opts: { value?: bigint; gasLimit?: bigint; data?: Uint8Array; maxFee?: bigint; tip?: bigint } = {},
): TypedTransaction {
  return createTx(
    {
      type: 2,
      chainId: CHAIN_ID,
      nonce,
      to,
      value: opts.value ?? 1n,
      gasLimit: opts.gasLimit ?? 21_000n,
      maxFeePerGas: opts.maxFee ?? 10n,
      maxPriorityFeePerGas: opts.tip ?? 2n,
      data: opts.data ?? new Uint8Array(0),
    },
    { common },
  ).sign(key(from))
}

export function fields(time: bigint) {
  return { time, gasLimit: 10_000_000n, baseFee: BASE_FEE, extra: new Uint8Array(0) }
}

export const CONTRACT = hexToBytes('0x00000000000000000000000000000000000c0de1')
export { bytesToHex }
