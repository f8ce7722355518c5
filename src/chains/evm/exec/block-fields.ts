/**
 * What the caller (fee rules, builder timing) decides about a new block, and the header assembled from it and
 * from the execution's results. Mandatory C-chain values (reference/cchain.md 5.1) are filled in here.
 */
import { KECCAK256_RLP_ARRAY } from '@ethereumjs/util'
import { type AvaHeader, BLACKHOLE, extDataHashOf, headerHash } from '../header.js'
import type { BlockEnv, RunResult } from './block-run.js'

export interface BlockFields {
  /** seconds */
  time: bigint
  gasLimit: bigint
  baseFee: bigint
  /** header.extra, or a function of the gas used (the ACP-176 fee state after the block) */
  extra: Uint8Array | ((gasUsed: bigint, extDataGasUsed: bigint) => Uint8Array)
  /** most gas the txs may use (ACP-176 capacity); default gasLimit */
  capacity?: bigint
  blockGasCost?: bigint
  timeMilliseconds?: bigint
  minDelayExcess?: bigint
}

export function envFor(parent: AvaHeader, fields: BlockFields): BlockEnv {
  return {
    parentHash: headerHash(parent),
    number: parent.number + 1n,
    time: fields.time,
    gasLimit: fields.gasLimit,
    baseFee: fields.baseFee,
    ...(fields.capacity === undefined ? {} : { capacity: fields.capacity }),
  }
}

export function envOfHeader(header: AvaHeader, capacity?: bigint): BlockEnv {
  return {
    parentHash: header.parentHash,
    number: header.number,
    time: header.time,
    gasLimit: header.gasLimit,
    baseFee: header.baseFee ?? 0n,
    ...(capacity === undefined ? {} : { capacity }),
  }
}

/** What a block carries besides its EVM txs (the atomic txs), as the header commits to it. */
export interface BlockExtData {
  extData: Uint8Array
  extDataGasUsed: bigint
}

export function assembleHeader(parent: AvaHeader, fields: BlockFields, run: RunResult, ext: BlockExtData): AvaHeader {
  const h: AvaHeader = {
    parentHash: headerHash(parent),
    uncleHash: KECCAK256_RLP_ARRAY,
    coinbase: BLACKHOLE,
    stateRoot: run.stateRoot,
    txRoot: run.txRoot,
    receiptRoot: run.receiptRoot,
    bloom: run.bloom,
    difficulty: 1n,
    number: parent.number + 1n,
    gasLimit: fields.gasLimit,
    gasUsed: run.gasUsed,
    time: fields.time,
    extra: typeof fields.extra === 'function' ? fields.extra(run.gasUsed, ext.extDataGasUsed) : fields.extra,
    mixDigest: new Uint8Array(32),
    nonce: new Uint8Array(8),
    extDataHash: extDataHashOf(ext.extData),
    baseFee: fields.baseFee,
    extDataGasUsed: ext.extDataGasUsed,
    blockGasCost: fields.blockGasCost ?? 0n,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconRoot: new Uint8Array(32),
  }
  if (fields.timeMilliseconds !== undefined) h.timeMilliseconds = fields.timeMilliseconds
  if (fields.minDelayExcess !== undefined) h.minDelayExcess = fields.minDelayExcess
  return h
}
