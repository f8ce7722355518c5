/** PEM blocks, read as leniently as Go's `encoding/pem` (text around blocks is skipped) and written 64 columns wide. */

export interface PemBlock {
  type: string
  bytes: Uint8Array
}

const BLOCK = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Every well-formed block in `text`, in order; malformed ones are skipped. */
export function pemDecodeAll(text: string): PemBlock[] {
  const blocks: PemBlock[] = []
  for (const match of text.matchAll(BLOCK)) {
    let body = match[2] ?? ''
    const headersEnd = body.search(/\r?\n\r?\n/)
    if (headersEnd !== -1 && body.slice(0, headersEnd).includes(':')) body = body.slice(headersEnd).trimStart()
    const base64 = body.replace(/\s+/g, '')
    if (!BASE64.test(base64) || base64.length % 4 !== 0) continue
    blocks.push({ type: match[1] ?? '', bytes: new Uint8Array(Buffer.from(base64, 'base64')) })
  }
  return blocks
}

/** One PEM block with 64-character lines. */
export function pemEncode(type: string, bytes: Uint8Array): string {
  const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
  const lines = base64.match(/.{1,64}/g) ?? []
  return `-----BEGIN ${type}-----\n${lines.map((l) => `${l}\n`).join('')}-----END ${type}-----\n`
}
