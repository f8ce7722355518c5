/**
 * Native secp256k1 sender recovery and keccak-256 for ethereumjs (`Common.customCrypto`), with ethereumjs' own
 * pure-JS functions (noble) when a native binary does not load.
 *
 * Recovering a sender in pure JS costs ~1.4 ms here, libsecp256k1 60-85 us (docs/performance.md): it was most of the
 * cost of a transfer. The registry packages `secp256k1` and `keccak` ship prebuilt linux-x64 binaries; their
 * main entry falls back to JS silently when the binary does not load, so Firn loads the binding entry itself
 * (`<package>/bindings`) and says which it got (`nativeCrypto`: the node logs it at startup, a warning when one
 * did not load; a test asserts both load here).
 *
 * The results are the same bytes as ethereumjs' `ecrecover` (same v -> recovery id rule, same 64-byte key without
 * the 0x04 prefix) and noble's `keccak_256`; a bad signature throws in both (ethereumjs turns any throw into its
 * `Invalid Signature` error).
 */
import { createRequire } from 'node:module'
import { concatBytes, ecrecover, setLengthLeft } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'

export type Ecrecover = (msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint) => Uint8Array
export type Keccak256 = (data: Uint8Array) => Uint8Array

interface Secp256k1Binding {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array
}
type KeccakBinding = (algorithm: 'keccak256') => { update(data: Buffer): { digest(): Buffer } }

const require = createRequire(import.meta.url)
function binding<T>(id: string): T | undefined {
  try {
    return require(id) as T
  } catch {
    return undefined
  }
}
const secp = binding<Secp256k1Binding>('secp256k1/bindings')
const keccakNative = binding<KeccakBinding>('keccak/bindings')

/** which primitives run natively in this process */
export const nativeCrypto: Readonly<{ secp256k1: boolean; keccak: boolean }> = {
  secp256k1: secp !== undefined,
  keccak: keccakNative !== undefined,
}

/** ethereumjs' `calculateSigRecovery` */
function recoveryId(v: bigint, chainId: bigint | undefined): bigint {
  if (v === 0n || v === 1n) return v
  return chainId === undefined ? v - 27n : v - (chainId * 2n + 35n)
}

/** ethereumjs' `ecrecover` on libsecp256k1 */
const recoverNative =
  (lib: Secp256k1Binding): Ecrecover =>
  (msgHash, v, r, s, chainId) => {
    const recovery = recoveryId(v, chainId)
    if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
    const pub = lib.ecdsaRecover(
      concatBytes(setLengthLeft(r, 32), setLengthLeft(s, 32)),
      Number(recovery),
      msgHash,
      false,
    )
    return pub.slice(1)
  }

/** sender recovery: libsecp256k1 when its binary loaded, else ethereumjs' own */
export const fastEcrecover: Ecrecover = secp === undefined ? ecrecover : recoverNative(secp)

/** the binding's sponge (keccak's native KeccakState) */
interface KeccakSponge {
  initialize(rate: number, capacity: number): void
  absorb(data: Buffer): void
  squeeze(length: number): Buffer
}

/**
 * One native sponge, reused: the binding's `keccak256` builds a Node Transform stream around a sponge per hash
 * (~10 us, more than the hash of a trie node), so Firn drives the sponge the stream holds directly: absorb, squeeze
 * (keccak-256 needs no suffix bits), initialize again. Hashing is synchronous, so one sponge serves every caller.
 */
function nativeKeccak(bind: KeccakBinding): Keccak256 {
  const sponge = (bind('keccak256') as unknown as { _state?: KeccakSponge })._state
  const hash = (buf: Buffer): Buffer =>
    sponge === undefined ? bind('keccak256').update(buf).digest() : absorbSqueeze(sponge, buf)
  return (data) => {
    const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    // a copy: callers may keep or expose `.buffer`
    return new Uint8Array(hash(buf))
  }
}

function absorbSqueeze(sponge: KeccakSponge, buf: Buffer): Buffer {
  sponge.initialize(1088, 512)
  sponge.absorb(buf)
  return sponge.squeeze(32)
}

/** keccak-256: the native binding when it loaded, else noble's */
export const fastKeccak256: Keccak256 = keccakNative === undefined ? keccak_256 : nativeKeccak(keccakNative)
