/**
 * Big-endian reading and writing as the reference's `wrappers.Packer` and linear codec do it, with their error
 * texts: a short read is `packer has insufficient length for input`, wrapped by the kind being read
 * (`couldn't unmarshal uint32: ...`, `couldn't unmarshal slice: ...`, `couldn't unmarshal interface: ...`).
 */
import { codecError } from './errors.js'

export const INSUFFICIENT = 'packer has insufficient length for input'
const MAX_INT32 = 2147483647

export class Reader {
  offset = 0
  private readonly view: DataView
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  private need(n: number, what: string | undefined): void {
    if (this.bytes.length - this.offset < n) {
      throw codecError(what === undefined ? INSUFFICIENT : `couldn't unmarshal ${what}: ${INSUFFICIENT}`)
    }
  }

  u16(what = 'uint16'): number {
    this.need(2, what)
    const v = this.view.getUint16(this.offset)
    this.offset += 2
    return v
  }

  u32(what = 'uint32'): number {
    this.need(4, what)
    const v = this.view.getUint32(this.offset)
    this.offset += 4
    return v
  }

  u64(): bigint {
    this.need(8, 'uint64')
    const v = this.view.getBigUint64(this.offset)
    this.offset += 8
    return v
  }

  /** A fixed array ([32]byte IDs, [20]byte addresses, [65]byte signatures): the bare packer error when short. */
  fixed(n: number): Uint8Array {
    this.need(n, undefined)
    const out = this.bytes.slice(this.offset, this.offset + n)
    this.offset += n
    return out
  }

  /** A slice's u32 count, refused above MaxInt32 as the reference does (the blob's size bounds it anyway). */
  count(): number {
    const n = this.u32('slice')
    if (n > MAX_INT32) {
      throw codecError(`max slice length exceeded; array length, ${n}, exceeds maximum length, ${MAX_INT32}`)
    }
    return n
  }

  /** The elements of a slice, read one by one (nothing is allocated ahead of the bytes that hold them). */
  slice<T>(read: (r: Reader) => T): T[] {
    const n = this.count()
    const out: T[] = []
    for (let i = 0; i < n; i++) out.push(read(this))
    return out
  }
}

export class Writer {
  private chunks: Uint8Array[] = []
  private size = 0

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes)
    this.size += bytes.length
  }

  u16(v: number): void {
    const b = new Uint8Array(2)
    new DataView(b.buffer).setUint16(0, v)
    this.push(b)
  }

  u32(v: number): void {
    const b = new Uint8Array(4)
    new DataView(b.buffer).setUint32(0, v)
    this.push(b)
  }

  u64(v: bigint): void {
    const b = new Uint8Array(8)
    new DataView(b.buffer).setBigUint64(0, v)
    this.push(b)
  }

  fixed(bytes: Uint8Array): void {
    this.push(bytes)
  }

  slice<T>(items: readonly T[], write: (w: Writer, item: T) => void): void {
    this.u32(items.length)
    for (const item of items) write(this, item)
  }

  get length(): number {
    return this.size
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.size)
    let at = 0
    for (const c of this.chunks) {
      out.set(c, at)
      at += c.length
    }
    return out
  }
}
