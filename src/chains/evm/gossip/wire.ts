/**
 * The app-level wire of EVM tx gossip (reference section 6): app_bytes = uvarint(handlerID) ‖ payload, the SDK's
 * AppRequest error codes, and bounded encode/decode of the proto/sdk payloads (PushGossip, PullGossipRequest,
 * PullGossipResponse), including the split of gossip items into messages of at most a byte budget.
 */

import { PullGossipRequest, PullGossipResponse, PushGossip } from '../../../../protocols/gossip/sdk.js'
import { MAX_BLOOM_SALT_LEN } from '../../../../protocols/peers/bloom.js'
import { AppError } from '../../vm.js'

/** the VM interface's AppError (src/chains/vm.ts): what an app request handler throws to answer with one */
export { AppError as AppRequestError }

/** Handler IDs of the reference's p2p SDK on the C chain. */
export const TX_GOSSIP_HANDLER_ID = 0n
export const ATOMIC_TX_GOSSIP_HANDLER_ID = 1n
export const SIGNATURE_HANDLER_ID = 2n

/** Gossip items per decoded message, and the largest message we decode. */
export const MAX_GOSSIP_ITEMS = 4096
export const MAX_GOSSIP_MESSAGE_BYTES = 2 * 1024 * 1024
/** The reference's target size of a push message and of a pull answer. */
export const TARGET_GOSSIP_BYTES = 20 * 1024

/** The SDK's AppError codes and texts (network/p2p/error.go). */
export const APP_ERROR = {
  unexpected: { code: -1, message: 'unexpected error' },
  unregisteredHandler: { code: -2, message: 'unregistered handler' },
  notValidator: { code: -3, message: 'not a validator' },
  throttled: { code: -4, message: 'throttled' },
} as const

/** An AppError for the requester, with the SDK's code and text. */
export function appError(kind: keyof typeof APP_ERROR): AppError {
  return new AppError(APP_ERROR[kind].code, APP_ERROR[kind].message)
}

export class GossipDecodeError extends Error {
  override readonly name = 'GossipDecodeError'
}

const MAX_UVARINT_BYTES = 10

/** Go's binary.AppendUvarint. */
export function encodeUvarint(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 64n) throw new RangeError(`uvarint out of range: ${value}`)
  const out: number[] = []
  let v = value
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return Uint8Array.from(out)
}

/** Go's binary.Uvarint: the value and how many bytes it took; throws on truncated or overflowing input. */
export function decodeUvarint(bytes: Uint8Array): { value: bigint; length: number } {
  let value = 0n
  for (let i = 0; i < bytes.length && i < MAX_UVARINT_BYTES; i++) {
    const b = bytes[i] as number
    if (i === MAX_UVARINT_BYTES - 1 && b > 1) throw new GossipDecodeError('uvarint overflows 64 bits')
    value |= BigInt(b & 0x7f) << BigInt(7 * i)
    if (b < 0x80) return { value, length: i + 1 }
  }
  throw new GossipDecodeError(bytes.length === 0 ? 'empty app bytes' : 'truncated uvarint')
}

/** uvarint(handlerID) ‖ payload. */
export function withHandlerPrefix(handlerId: bigint, payload: Uint8Array): Uint8Array {
  const prefix = encodeUvarint(handlerId)
  const out = new Uint8Array(prefix.length + payload.length)
  out.set(prefix)
  out.set(payload, prefix.length)
  return out
}

export function splitHandlerPrefix(appBytes: Uint8Array): { handlerId: bigint; payload: Uint8Array } {
  const { value, length } = decodeUvarint(appBytes)
  return { handlerId: value, payload: appBytes.subarray(length) }
}

function checkSize(bytes: Uint8Array): void {
  if (bytes.length > MAX_GOSSIP_MESSAGE_BYTES) {
    throw new GossipDecodeError(`message of ${bytes.length} bytes exceeds ${MAX_GOSSIP_MESSAGE_BYTES}`)
  }
}

function decodeBounded<T>(what: string, decode: () => T): T {
  try {
    return decode()
  } catch (err) {
    throw new GossipDecodeError(`bad ${what}: ${err instanceof Error ? err.message : String(err)}`)
  }
}

export function encodePushGossip(gossip: readonly Uint8Array[]): Uint8Array {
  return PushGossip.encode({ gossip: [...gossip] })
}

export function decodePushGossip(bytes: Uint8Array): Uint8Array[] {
  checkSize(bytes)
  return decodeBounded('PushGossip', () => PushGossip.decode(bytes, { limits: { gossip: MAX_GOSSIP_ITEMS } }).gossip)
}

export function encodePullResponse(gossip: readonly Uint8Array[]): Uint8Array {
  return PullGossipResponse.encode({ gossip: [...gossip] })
}

export function decodePullResponse(bytes: Uint8Array): Uint8Array[] {
  checkSize(bytes)
  return decodeBounded(
    'PullGossipResponse',
    () => PullGossipResponse.decode(bytes, { limits: { gossip: MAX_GOSSIP_ITEMS } }).gossip,
  )
}

export function encodePullRequest(salt: Uint8Array, filter: Uint8Array): Uint8Array {
  return PullGossipRequest.encode({ salt, filter })
}

/** The request's salt (at most MAX_BLOOM_SALT_LEN bytes) and filter bytes (parse them with BloomFilter.parse). */
export function decodePullRequest(bytes: Uint8Array): { salt: Uint8Array; filter: Uint8Array } {
  checkSize(bytes)
  const request = decodeBounded('PullGossipRequest', () => PullGossipRequest.decode(bytes))
  if (request.salt.length > MAX_BLOOM_SALT_LEN) {
    throw new GossipDecodeError(`salt of ${request.salt.length} bytes exceeds ${MAX_BLOOM_SALT_LEN}`)
  }
  return { salt: request.salt, filter: request.filter }
}

function varintLength(n: number): number {
  let len = 1
  while (n >= 0x80) {
    n = Math.floor(n / 0x80)
    len++
  }
  return len
}

/** What an item adds to an encoded repeated-bytes message: tag, length, bytes. */
export function encodedItemSize(item: Uint8Array): number {
  return 1 + varintLength(item.length) + item.length
}

/**
 * Groups items, in order, into batches whose encoded message is at most `maxBytes`; an item larger than that on
 * its own forms a batch alone.
 */
export function batchBySize<T extends { bytes: Uint8Array }>(items: readonly T[], maxBytes: number): T[][] {
  const batches: T[][] = []
  let current: T[] = []
  let size = 0
  for (const item of items) {
    const cost = encodedItemSize(item.bytes)
    if (current.length > 0 && size + cost > maxBytes) {
      batches.push(current)
      current = []
      size = 0
    }
    current.push(item)
    size += cost
  }
  if (current.length > 0) batches.push(current)
  return batches
}
