/** `admin.dbGet`: read one raw key of the node's database (`0x`-hex in, `0x`-hex out, errorCode 2 = not found). */
import type { Database } from '../../db/open.js'
import { FirnError } from '../../runtime/errors.js'

export const DB_ERROR_CLOSED = 1
export const DB_ERROR_NOT_FOUND = 2

/** Go's hex decoding with its error texts; the `0x` prefix is required. */
export function decodeHexNC(s: string): Uint8Array {
  if (!s.startsWith('0x')) throw new FirnError('missing 0x prefix to hex encoding')
  const hex = s.slice(2)
  for (let i = 0; i < hex.length; i++) {
    const c = hex[i] as string
    if (!/[0-9a-fA-F]/.test(c)) {
      const cp = c.codePointAt(0) ?? 0
      throw new FirnError(`encoding/hex: invalid byte: U+${cp.toString(16).toUpperCase().padStart(4, '0')} '${c}'`)
    }
  }
  if (hex.length % 2 !== 0) throw new FirnError('encoding/hex: odd length hex string')
  return Uint8Array.from(Buffer.from(hex, 'hex'))
}

export async function dbGet(db: Database, key: string): Promise<{ value: string; errorCode: number }> {
  const k = decodeHexNC(key)
  if (db.status !== 'open') return { value: '', errorCode: DB_ERROR_CLOSED }
  const v = await db.get(k)
  if (v === undefined) return { value: '', errorCode: DB_ERROR_NOT_FOUND }
  return { value: `0x${Buffer.from(v).toString('hex')}`, errorCode: 0 }
}
