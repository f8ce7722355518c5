/**
 * Addresses as a chain's native-token API reads and writes them (coreth's `ParseServiceAddress`,
 * `ParseLocalAddress`, `FormatLocalAddress`): a short address is RIPEMD-160(SHA-256(compressed public key)),
 * written `<chain's primary alias>-<hrp>1...` with the network's HRP; parsing takes a raw CB58 short ID or such
 * an address whose alias names this chain, with the reference's texts (`no separator found in address`,
 * `there is no ID with alias: Y`, `expected hrp "local" but got "avax"`, `expected chainID to be "..." but was
 * "..."`, bech32 errors).
 */
import { ripemd160 } from '@noble/hashes/legacy.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { networkHrp } from '../../../config/networks.js'
import { shortIdFromString } from '../../../identity/ids.js'
import { formatAddress, parseAddress } from './bech32.js'
import { AtomicError } from './errors.js'
import { fromHex, toHex } from './hex.js'
import { idCb58 } from './ids.js'
import type { Hex } from './types.js'

/** What address parsing needs to know about the chain and its network. */
export interface AddressContext {
  networkId: number
  /** this chain's ID */
  chainId: Hex
  /** the alias table: an alias or CB58 chain ID -> chain ID; throws `there is no ID with alias: <alias>` */
  lookup(alias: string): Hex
  /** this chain's primary alias (`C`, `D`, ...) */
  primaryAlias: string
}

/** The short address (20 bytes) of a 33-byte compressed secp256k1 public key. */
export const shortAddressOf = (compressedPublicKey: Uint8Array): Hex => toHex(ripemd160(sha256(compressedPublicKey)))

/** `FormatLocalAddress`: `<primary alias>-<hrp>1...`. */
export const formatLocalAddress = (ctx: AddressContext, shortAddr: Hex): string =>
  formatAddress(ctx.primaryAlias, networkHrp(ctx.networkId), fromHex(shortAddr, 20, 'address'))

/** `ParseAddress`: the chain an address names and its short address. */
export function parseChainAddress(ctx: AddressContext, text: string): { chainId: Hex; address: Hex } {
  const { chainAlias, hrp, payload } = parseAddress(text)
  const chainId = ctx.lookup(chainAlias)
  const expected = networkHrp(ctx.networkId)
  if (hrp !== expected) throw new AtomicError(`expected hrp "${expected}" but got "${hrp}"`, 'address')
  if (payload.length !== 20) {
    throw new AtomicError(`invalid hash length: expected 20 bytes but got ${payload.length}`, 'address')
  }
  return { chainId, address: toHex(payload) }
}

/** `ParseLocalAddress`: an address of this chain. */
export function parseLocalAddress(ctx: AddressContext, text: string): Hex {
  const { chainId, address } = parseChainAddress(ctx, text)
  if (chainId !== ctx.chainId) {
    throw new AtomicError(`expected chainID to be "${idCb58(ctx.chainId)}" but was "${idCb58(chainId)}"`, 'address')
  }
  return address
}

/** `ParseServiceAddress`: a raw CB58 short ID, else an address of this chain (whose error is the one reported). */
export function parseServiceAddress(ctx: AddressContext, text: string): Hex {
  try {
    return toHex(shortIdFromString(text))
  } catch {
    return parseLocalAddress(ctx, text)
  }
}
