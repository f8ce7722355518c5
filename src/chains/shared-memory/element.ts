/**
 * A shared-memory element as stored: the reference's `dbElement` in its linear codec (u16 version 0 ‖ present
 * bool ‖ u32 len ‖ value ‖ u32 n ‖ n × (u32 len ‖ trait)) followed by a u64 insertion number (`seq`, Firn's,
 * which places it in its traits' indexes). `present: false` is the reference's removal marker: a key removed
 * before it was put (the put then cancels the marker and stores nothing).
 */
import { FirnError } from '../../runtime/errors.js'

export interface StoredElement {
  present: boolean
  value: Uint8Array
  traits: Uint8Array[]
  seq: number
}

export function encodeElement(e: StoredElement): Uint8Array {
  let size = 2 + 1 + 4 + e.value.length + 4 + 8
  for (const t of e.traits) size += 4 + t.length
  const out = new Uint8Array(size)
  const view = new DataView(out.buffer)
  let at = 2
  out[at++] = e.present ? 1 : 0
  view.setUint32(at, e.value.length)
  at += 4
  out.set(e.value, at)
  at += e.value.length
  view.setUint32(at, e.traits.length)
  at += 4
  for (const t of e.traits) {
    view.setUint32(at, t.length)
    at += 4
    out.set(t, at)
    at += t.length
  }
  view.setBigUint64(at, BigInt(e.seq))
  return out
}

function corrupt(): FirnError {
  return new FirnError('shared memory: corrupt element record')
}

export function decodeElement(bytes: Uint8Array): StoredElement {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let at = 0
  const need = (n: number) => {
    if (at + n > bytes.length) throw corrupt()
  }
  need(3)
  if (view.getUint16(0) !== 0) throw corrupt()
  at = 2
  const present = bytes[at++] === 1
  need(4)
  const valueLen = view.getUint32(at)
  at += 4
  need(valueLen)
  const value = bytes.slice(at, at + valueLen)
  at += valueLen
  need(4)
  const n = view.getUint32(at)
  at += 4
  const traits: Uint8Array[] = []
  for (let i = 0; i < n; i++) {
    need(4)
    const len = view.getUint32(at)
    at += 4
    need(len)
    traits.push(bytes.slice(at, at + len))
    at += len
  }
  need(8)
  const seq = Number(view.getBigUint64(at))
  if (at + 8 !== bytes.length) throw corrupt()
  return { present, value, traits, seq }
}
