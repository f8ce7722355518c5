/**
 * geth's keystore over a directory of Web3 Secret Storage v3 key files (accounts/keystore): the accounts are
 * re-scanned from the directory on every call (files are re-read only when their size or mtime changes), new
 * keys are written as `UTC--<time>--<address>` with mode 0600 in a 0700 directory (a hidden temporary file
 * renamed into place), and unlocked keys live in memory only, until `lock`, their timer or `close`.
 */
import type { Dirent } from 'node:fs'
import { chmod, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { TypedTransaction } from '@ethereumjs/tx'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import {
  checkPrivateKey,
  decryptKey,
  encryptKey,
  KeystoreError,
  KeystoreText,
  keyAddress,
  keyFileName,
  passwordBytes,
  type ScryptParams,
  STANDARD_SCRYPT,
} from './key-file.js'
import { signHash } from './signing.js'

export { KeystoreError, KeystoreText } from './key-file.js'

export interface KeystoreAccount {
  /** 0x lowercase hex */
  address: string
  /** absolute path of the key file */
  path: string
  /** `keystore://<path>` (geth's accounts.URL) */
  url: string
}

export interface KeystoreOptions {
  /** scrypt cost of new key files (geth's standard n=262144 r=8 p=1) */
  scrypt?: ScryptParams
  /** ms wall clock for key file names */
  now?: () => number
  /** key files read per scan (default 10,000) */
  maxFiles?: number
}

export const MAX_KEY_FILES = 10_000
/** Key files are about 500 bytes; larger files are not key files. */
const MAX_KEY_FILE_BYTES = 64 * 1024
/** KDF runs at once (each scrypt at the standard cost holds 256 MiB). */
const MAX_CONCURRENT_KDF = 2
/** setTimeout's largest delay; longer unlocks re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1

interface CachedFile {
  mtimeMs: number
  size: number
  address: string | null
}

interface Unlocked {
  key: Uint8Array
  timer: NodeJS.Timeout | undefined
  indefinite: boolean
}

/** A 0x hex address (any case) or 20 bytes -> 0x lowercase hex. */
export function addressHex(address: string | Uint8Array): string {
  if (typeof address !== 'string') return `0x${Buffer.from(address).toString('hex')}`
  return address.toLowerCase().startsWith('0x') ? address.toLowerCase() : `0x${address.toLowerCase()}`
}

/** common.HexToAddress on a key file's `address`: left-padded or cut to the last 20 bytes. */
function fileAddress(v: unknown): string | null {
  if (typeof v !== 'string') return null
  let s = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v
  if (s.length % 2 === 1) s = `0${s}`
  const valid = /^(?:[0-9a-fA-F]{2})*/.exec(s)?.[0] ?? ''
  const hex = valid.toLowerCase().slice(-40).padStart(40, '0')
  return /^0+$/.test(hex) ? null : `0x${hex}`
}

/** geth's crypto.HexToECDSA error for the first bad byte: `invalid hex character %q in private key`. */
function goQuoteByte(b: number): string {
  const named: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' }
  if (b === 0x27) return "'\\''"
  if (b === 0x5c) return "'\\\\'"
  if (named[b] !== undefined) return `'\\${named[b]}'`
  if (b < 0x20 || b === 0x7f) return `'\\x${b.toString(16).padStart(2, '0')}'`
  if (b < 0x7f) return `'${String.fromCharCode(b)}'`
  if (b < 0xa1 || b === 0xad) return `'\\u${b.toString(16).padStart(4, '0')}'`
  return `'${String.fromCharCode(b)}'`
}

/** crypto.HexToECDSA: hex (no 0x) -> a valid private key, with geth's texts. */
export function parseRawKey(hexKey: string): Uint8Array {
  const bytes = Buffer.from(hexKey, 'utf8')
  const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
  for (let i = 0; i < bytes.length; i++) {
    if (!isHex(bytes[i]!)) throw new KeystoreError(`invalid hex character ${goQuoteByte(bytes[i]!)} in private key`)
  }
  if (bytes.length % 2 === 1) throw new KeystoreError('invalid hex data for private key')
  const key = Uint8Array.from(Buffer.from(hexKey, 'hex'))
  checkPrivateKey(key)
  return key
}

export class Keystore {
  readonly dir: string
  readonly #scrypt: ScryptParams
  readonly #now: () => number
  readonly #maxFiles: number
  readonly #files = new Map<string, CachedFile>()
  readonly #unlocked = new Map<string, Unlocked>()
  #kdfRunning = 0
  #imports: Promise<void> = Promise.resolve()
  readonly #kdfWaiting: (() => void)[] = []

  constructor(dir: string, opts: KeystoreOptions = {}) {
    this.dir = resolve(dir)
    this.#scrypt = opts.scrypt ?? STANDARD_SCRYPT
    this.#now = opts.now ?? Date.now
    this.#maxFiles = opts.maxFiles ?? MAX_KEY_FILES
  }

  /** The key files' accounts, sorted by URL (file path), as geth lists them. A missing directory has none. */
  async accounts(): Promise<KeystoreAccount[]> {
    let entries: Dirent[]
    try {
      entries = await readdir(this.dir, { withFileTypes: true })
    } catch {
      this.#files.clear()
      return []
    }
    const names = entries
      .filter((e) => e.isFile() && !e.name.startsWith('.') && !e.name.endsWith('~'))
      .map((e) => e.name)
      .sort()
      .slice(0, this.#maxFiles)
    const seen = new Set<string>()
    const out: KeystoreAccount[] = []
    for (const name of names) {
      const path = join(this.dir, name)
      seen.add(path)
      const address = await this.#readAddress(path)
      if (address !== null) out.push({ address, path, url: `keystore://${path}` })
    }
    for (const path of this.#files.keys()) if (!seen.has(path)) this.#files.delete(path)
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  }

  async #readAddress(path: string): Promise<string | null> {
    try {
      const st = await stat(path)
      const cached = this.#files.get(path)
      if (cached !== undefined && cached.mtimeMs === st.mtimeMs && cached.size === st.size) return cached.address
      let address: string | null = null
      if (st.size <= MAX_KEY_FILE_BYTES) {
        try {
          const doc = JSON.parse(await readFile(path, 'utf8')) as unknown
          if (doc !== null && typeof doc === 'object') address = fileAddress((doc as Record<string, unknown>).address)
        } catch {
          address = null
        }
      }
      this.#files.set(path, { mtimeMs: st.mtimeMs, size: st.size, address })
      return address
    } catch {
      return null
    }
  }

  async hasAddress(address: string | Uint8Array): Promise<boolean> {
    const want = addressHex(address)
    return (await this.accounts()).some((a) => a.address === want)
  }

  /** The one key file of `address`: geth's `no key for given address or file`, or ambiguity. */
  async find(address: string | Uint8Array): Promise<KeystoreAccount> {
    const want = addressHex(address)
    const matches = (await this.accounts()).filter((a) => a.address === want)
    if (matches.length === 1) return matches[0]!
    if (matches.length === 0) throw new KeystoreError(KeystoreText.noMatch)
    throw new KeystoreError(`multiple keys match address (${matches.map((m) => m.path).join(', ')})`)
  }

  /** A fresh random key, stored under `password`. */
  async newAccount(password: string): Promise<KeystoreAccount> {
    passwordBytes(password)
    return this.#store(secp256k1.utils.randomSecretKey(), password)
  }

  /** ImportRawKey: hex without 0x (crypto.HexToECDSA texts); `account already exists` if a file has it. */
  async importRawKey(hexKey: string, password: string): Promise<KeystoreAccount> {
    return this.importKey(parseRawKey(hexKey), password)
  }

  async importKey(key: Uint8Array, password: string): Promise<KeystoreAccount> {
    checkPrivateKey(key)
    passwordBytes(password)
    // one import at a time, so two imports of one key cannot both pass the check (geth's importMu)
    const run = this.#imports.then(async () => {
      if (await this.hasAddress(keyAddress(key))) throw new KeystoreError(KeystoreText.exists)
      return this.#store(key, password)
    })
    this.#imports = run.then(
      () => {},
      () => {},
    )
    return run
  }

  async #store(key: Uint8Array, password: string): Promise<KeystoreAccount> {
    const json = await this.#kdf(() => encryptKey(key, password, this.#scrypt))
    const address = `0x${json.address}`
    const path = join(this.dir, keyFileName(address, this.#now(), Number(process.hrtime.bigint() % 1_000_000n)))
    await mkdir(this.dir, { recursive: true, mode: 0o700 })
    const tmp = join(this.dir, `.${keyFileName(address, this.#now())}.tmp${process.pid}`)
    try {
      const fh = await open(tmp, 'wx', 0o600)
      try {
        await fh.writeFile(JSON.stringify(json))
        await fh.sync()
      } finally {
        await fh.close()
      }
      await chmod(tmp, 0o600)
      await rename(tmp, path)
    } catch (err) {
      await unlink(tmp).catch(() => {})
      throw err
    }
    return { address, path, url: `keystore://${path}` }
  }

  /** The decrypted key of `address` (file found by address), or geth's errors. */
  async #decrypt(address: string | Uint8Array, password: string): Promise<{ key: Uint8Array; address: string }> {
    passwordBytes(password)
    const account = await this.find(address)
    const text = await readFile(account.path, 'utf8')
    const key = await this.#kdf(() => decryptKey(text, password))
    const have = keyAddress(key)
    if (have !== account.address) {
      key.fill(0)
      throw new KeystoreError(`key content mismatch: have account ${have.slice(2)}, want ${account.address.slice(2)}`)
    }
    return { key, address: account.address }
  }

  async #kdf<T>(run: () => Promise<T>): Promise<T> {
    if (this.#kdfRunning >= MAX_CONCURRENT_KDF) await new Promise<void>((r) => this.#kdfWaiting.push(r))
    this.#kdfRunning++
    try {
      return await run()
    } finally {
      this.#kdfRunning--
      this.#kdfWaiting.shift()?.()
    }
  }

  /**
   * TimedUnlock: decrypt and keep the key for `durationSec` seconds (0: until `lock`). An indefinite unlock is
   * kept as it is; a timed one gets the new timeout.
   */
  async unlock(address: string | Uint8Array, password: string, durationSec: number): Promise<void> {
    const { key, address: addr } = await this.#decrypt(address, password)
    const current = this.#unlocked.get(addr)
    if (current !== undefined) {
      if (current.indefinite) {
        key.fill(0)
        return
      }
      clearTimeout(current.timer)
    }
    const entry: Unlocked = { key, timer: undefined, indefinite: durationSec <= 0 }
    if (durationSec > 0) this.#arm(addr, entry, durationSec * 1000)
    this.#unlocked.set(addr, entry)
    if (current !== undefined && current.key !== key) current.key.fill(0)
  }

  #arm(addr: string, entry: Unlocked, remainingMs: number): void {
    const delay = Math.min(remainingMs, MAX_TIMER_MS)
    entry.timer = setTimeout(() => {
      if (remainingMs > MAX_TIMER_MS) return this.#arm(addr, entry, remainingMs - MAX_TIMER_MS)
      if (this.#unlocked.get(addr) === entry) this.#drop(addr, entry)
    }, delay)
    entry.timer.unref()
  }

  #drop(addr: string, entry: Unlocked): void {
    clearTimeout(entry.timer)
    entry.key.fill(0)
    this.#unlocked.delete(addr)
  }

  /** Lock: forget the unlocked key (a no-op when it is locked). */
  lock(address: string | Uint8Array): void {
    const addr = addressHex(address)
    const entry = this.#unlocked.get(addr)
    if (entry !== undefined) this.#drop(addr, entry)
  }

  isUnlocked(address: string | Uint8Array): boolean {
    return this.#unlocked.has(addressHex(address))
  }

  #unlockedKey(address: string | Uint8Array): Uint8Array {
    const entry = this.#unlocked.get(addressHex(address))
    if (entry === undefined) throw new KeystoreError(KeystoreText.locked)
    return entry.key
  }

  /** SignHash with the unlocked key: [R || S || V], V = 0/1. */
  signHash(address: string | Uint8Array, hash: Uint8Array): Uint8Array {
    return signHash(hash, this.#unlockedKey(address))
  }

  async signHashWithPassword(address: string | Uint8Array, password: string, hash: Uint8Array): Promise<Uint8Array> {
    const { key } = await this.#decrypt(address, password)
    try {
      return signHash(hash, key)
    } finally {
      key.fill(0)
    }
  }

  /** SignTx with the unlocked key (the tx's common gives the chain id: EIP-155 for legacy txs). */
  signTx<T extends TypedTransaction>(address: string | Uint8Array, tx: T): T {
    return tx.sign(this.#unlockedKey(address)) as T
  }

  async signTxWithPassword<T extends TypedTransaction>(
    address: string | Uint8Array,
    password: string,
    tx: T,
  ): Promise<T> {
    const { key } = await this.#decrypt(address, password)
    try {
      return tx.sign(key) as T
    } finally {
      key.fill(0)
    }
  }

  /** Lock every account (keys are zeroed) and stop their timers. */
  close(): void {
    for (const [addr, entry] of this.#unlocked) this.#drop(addr, entry)
  }
}
