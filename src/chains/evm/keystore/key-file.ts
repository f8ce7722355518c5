/**
 * Web3 Secret Storage v3 key files as geth writes and reads them (accounts/keystore/passphrase.go): scrypt
 * (written, n=262144 r=8 p=1 dklen=32) or pbkdf2-hmac-sha256 (read only), aes-128-ctr, and
 * MAC = keccak256(derivedKey[16:32] ++ ciphertext). Error texts are geth's.
 */

import { createCipheriv, createDecipheriv, pbkdf2, randomBytes, randomUUID, scrypt } from 'node:crypto'
import { privateToAddress } from '@ethereumjs/util'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { scryptAsync } from '@noble/hashes/scrypt.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { FirnError } from '../../../runtime/errors.js'

export const KeystoreText = {
  decrypt: 'could not decrypt key with given password',
  noMatch: 'no key for given address or file',
  locked: 'authentication needed: password or unlock',
  unknownAccount: 'unknown account',
  exists: 'account already exists',
  /** Firn's limit; geth has none */
  passwordTooLong: 'password longer than 1024 bytes',
} as const

/** geth's StandardScryptN / StandardScryptP (r is always 8). */
export const STANDARD_SCRYPT = { n: 262_144, r: 8, p: 1 } as const
export const MAX_PASSWORD_BYTES = 1024
/** Firn's bounds on the KDF parameters a file may ask for (geth has none): memory and iterations. */
const MAX_SCRYPT_MEMORY = 1024 * 1024 * 1024
const MAX_PBKDF2_ROUNDS = 10_000_000

export interface ScryptParams {
  n: number
  r: number
  p: number
}

/** The JSON geth writes (field order as Go marshals encryptedKeyJSONV3; kdfparams keys sorted). */
export interface KeyFileJson {
  address: string
  crypto: {
    cipher: string
    ciphertext: string
    cipherparams: { iv: string }
    kdf: string
    kdfparams: Record<string, unknown>
    mac: string
  }
  id: string
  version: number
}

export class KeystoreError extends FirnError {
  override readonly name = 'KeystoreError'
}

export function passwordBytes(password: string): Buffer {
  const bytes = Buffer.from(password, 'utf8')
  if (bytes.length > MAX_PASSWORD_BYTES) throw new KeystoreError(KeystoreText.passwordTooLong)
  return bytes
}

function scryptKey(password: Buffer, salt: Buffer, dkLen: number, { n, r, p }: ScryptParams): Promise<Buffer> {
  const memory = 128 * r * (n + p + 2)
  if (memory > MAX_SCRYPT_MEMORY) return Promise.reject(new KeystoreError('scrypt: parameters are too large'))
  // OpenSSL refuses N >= 2^(16r), which Go's scrypt (and the spec's test vector, r=1) allows: use noble's there
  if (r < 4 && n >= 2 ** (16 * r))
    return scryptAsync(password, salt, { N: n, r, p, dkLen, maxmem: memory + 1024 * 1024 }).then(
      (key) => Buffer.from(key),
      (err: Error) => Promise.reject(new KeystoreError(`scrypt: ${err.message}`)),
    )
  return new Promise((resolve, reject) => {
    try {
      scrypt(password, salt, dkLen, { N: n, r, p, maxmem: memory + 1024 * 1024 }, (err, key) =>
        err ? reject(new KeystoreError(`scrypt: ${err.message}`)) : resolve(key),
      )
    } catch (err) {
      reject(new KeystoreError(`scrypt: ${(err as Error).message}`))
    }
  })
}

function pbkdf2Key(password: Buffer, salt: Buffer, rounds: number, dkLen: number): Promise<Buffer> {
  if (rounds > MAX_PBKDF2_ROUNDS) return Promise.reject(new KeystoreError('pbkdf2: iteration count too large'))
  return new Promise((resolve, reject) => {
    pbkdf2(password, salt, rounds, dkLen, 'sha256', (err, key) => (err ? reject(err) : resolve(key)))
  })
}

const aesCtr = (key: Buffer, iv: Buffer, data: Buffer, encrypt: boolean): Buffer => {
  const c = encrypt ? createCipheriv('aes-128-ctr', key, iv) : createDecipheriv('aes-128-ctr', key, iv)
  return Buffer.concat([c.update(data), c.final()])
}

const mac = (derived: Buffer, cipherText: Buffer): Buffer =>
  Buffer.from(keccak_256(Buffer.concat([derived.subarray(16, 32), cipherText])))

/** The address of a private key, 0x lowercase hex. */
export const keyAddress = (key: Uint8Array): string => `0x${Buffer.from(privateToAddress(key)).toString('hex')}`

/** geth's crypto.ToECDSA checks on a raw key. */
export function checkPrivateKey(key: Uint8Array): void {
  if (key.length !== 32) throw new KeystoreError('invalid length, need 256 bits')
  const k = BigInt(`0x${Buffer.from(key).toString('hex')}`)
  if (k >= secp256k1.Point.CURVE().n) throw new KeystoreError('invalid private key, >=N')
  if (k === 0n) throw new KeystoreError('invalid private key, zero or negative')
}

/** EncryptKey: the v3 JSON for `key` under `password`. */
export async function encryptKey(
  key: Uint8Array,
  password: string,
  params: ScryptParams = STANDARD_SCRYPT,
): Promise<KeyFileJson> {
  const pw = passwordBytes(password)
  const salt = randomBytes(32)
  const derived = await scryptKey(pw, salt, 32, params)
  const iv = randomBytes(16)
  const cipherText = aesCtr(derived.subarray(0, 16), iv, Buffer.from(key), true)
  return {
    address: keyAddress(key).slice(2),
    crypto: {
      cipher: 'aes-128-ctr',
      ciphertext: cipherText.toString('hex'),
      cipherparams: { iv: iv.toString('hex') },
      kdf: 'scrypt',
      kdfparams: { dklen: 32, n: params.n, p: params.p, r: params.r, salt: salt.toString('hex') },
      mac: mac(derived, cipherText).toString('hex'),
    },
    id: randomUUID(),
    version: 3,
  }
}

/** Go's hex.DecodeString on a JSON field (any non-string is a type error). */
function hexField(v: unknown, name: string): Buffer {
  if (typeof v !== 'string') throw new KeystoreError(`json: cannot unmarshal ${typeof v} into Go value of type ${name}`)
  if (v.length % 2 === 1) throw new KeystoreError('encoding/hex: odd length hex string')
  const bad = v.search(/[^0-9a-fA-F]/)
  if (bad >= 0)
    throw new KeystoreError(
      `encoding/hex: invalid byte: U+${v.charCodeAt(bad).toString(16).toUpperCase().padStart(4, '0')}`,
    )
  return Buffer.from(v, 'hex')
}

function intField(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new KeystoreError(`invalid kdf parameter ${name}`)
  return v
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** DecryptKey: the private key in a v3 key file (JSON text or parsed), or geth's error. */
export async function decryptKey(json: string | unknown, password: string): Promise<Uint8Array> {
  const pw = passwordBytes(password)
  let doc: unknown = json
  if (typeof json === 'string') {
    try {
      doc = JSON.parse(json)
    } catch (err) {
      throw new KeystoreError((err as Error).message)
    }
  }
  if (!isObject(doc) || !isObject(doc.crypto ?? doc.Crypto)) throw new KeystoreError('invalid key file')
  if (doc.version !== 3) throw new KeystoreError(`version not supported: ${String(doc.version)}`)
  const c = (doc.crypto ?? doc.Crypto) as Record<string, unknown>
  if (c.cipher !== 'aes-128-ctr') throw new KeystoreError(`cipher not supported: ${String(c.cipher)}`)
  const wantMac = hexField(c.mac, 'string')
  const iv = hexField(isObject(c.cipherparams) ? c.cipherparams.iv : undefined, 'string')
  const cipherText = hexField(c.ciphertext, 'string')
  const kp = isObject(c.kdfparams) ? c.kdfparams : {}
  const salt = hexField(kp.salt, 'string')
  const dkLen = intField(kp.dklen, 'dklen')
  if (dkLen < 32) throw new KeystoreError('invalid kdf parameter dklen')
  let derived: Buffer
  if (c.kdf === 'scrypt') {
    const n = intField(kp.n, 'n')
    derived = await scryptKey(pw, salt, dkLen, { n, r: intField(kp.r, 'r'), p: intField(kp.p, 'p') })
  } else if (c.kdf === 'pbkdf2') {
    if (kp.prf !== 'hmac-sha256') throw new KeystoreError(`unsupported PBKDF2 PRF: ${String(kp.prf)}`)
    derived = await pbkdf2Key(pw, salt, intField(kp.c, 'c'), dkLen)
  } else {
    throw new KeystoreError(`unsupported KDF: ${String(c.kdf)}`)
  }
  if (iv.length !== 16) throw new KeystoreError('crypto/aes: invalid IV length')
  if (!mac(derived, cipherText).equals(wantMac)) throw new KeystoreError(KeystoreText.decrypt)
  const key = aesCtr(derived.subarray(0, 16), iv, cipherText, false)
  try {
    checkPrivateKey(key)
  } catch (err) {
    throw new KeystoreError(`invalid key: ${(err as Error).message}`)
  }
  return Uint8Array.from(key)
}

/** geth's keyFileName: `UTC--<ISO time, '-' for ':'>--<address hex>`, nanoseconds from the ms clock. */
export function keyFileName(address: string, nowMs: number, subMsNanos = 0): string {
  const t = new Date(nowMs)
  const p = (n: number, w = 2) => String(n).padStart(w, '0')
  const nanos = (nowMs % 1000) * 1_000_000 + (subMsNanos % 1_000_000)
  const stamp =
    `${p(t.getUTCFullYear(), 4)}-${p(t.getUTCMonth() + 1)}-${p(t.getUTCDate())}` +
    `T${p(t.getUTCHours())}-${p(t.getUTCMinutes())}-${p(t.getUTCSeconds())}.${p(nanos, 9)}Z`
  return `UTC--${stamp}--${address.replace(/^0x/, '').toLowerCase()}`
}
