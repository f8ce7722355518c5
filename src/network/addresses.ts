/** Address helpers of the p2p layer: multiaddr <-> `ip:port` text, and IP literals as bytes. */

/** `ip:port` of a multiaddr (`[ip6]:port` for IPv6), or its text. */
export function addrOf(ma: { toString(): string }): string {
  const m = /^\/(ip4|ip6|dns4|dns6|dns)\/([^/]+)\/tcp\/(\d+)/.exec(ma.toString())
  if (!m) return ma.toString()
  return m[1] === 'ip6' ? `[${m[2]}]:${m[3]}` : `${m[2]}:${m[3]}`
}

/** `ip:port` (or `[ip6]:port`) -> `/ip4/ip/tcp/port` (`/ip6/...`), with `/p2p/<peerId>` when given. */
export function multiaddrText(addr: string, peerId?: string): string {
  const m = /^\[?([0-9a-fA-F:.]+?)\]?:(\d+)$/.exec(addr)
  if (!m) throw new RangeError(`not an ip:port: ${addr}`)
  const ip = m[1] as string
  const base = `/${ip.includes(':') ? 'ip6' : 'ip4'}/${ip}/tcp/${m[2]}`
  return peerId ? `${base}/p2p/${peerId}` : base
}

/** An IP literal as 4 (IPv4) or 16 (IPv6) bytes. */
export function ipBytes(ip: string): Uint8Array {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) {
    const parts = ip.split('.').map(Number)
    if (parts.some((p) => p > 255)) throw new RangeError(`bad IPv4: ${ip}`)
    return Uint8Array.from(parts)
  }
  let text = ip
  let tail: number[] = []
  const v4 = /:(\d{1,3}(\.\d{1,3}){3})$/.exec(text)
  if (v4) {
    const b = ipBytes(v4[1] as string)
    tail = [((b[0] as number) << 8) | (b[1] as number), ((b[2] as number) << 8) | (b[3] as number)]
    text = text.slice(0, v4.index)
    if (text.endsWith(':')) text = `${text}:`
  }
  const [head = '', rest] = text.split('::')
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)))
  const h = groups(head)
  const r = rest === undefined ? [] : groups(rest)
  const missing = 8 - tail.length - h.length - r.length
  if (rest === undefined ? missing !== 0 : missing < 0) throw new RangeError(`bad IPv6: ${ip}`)
  const all = [...h, ...Array(rest === undefined ? 0 : missing).fill(0), ...r, ...tail]
  if (all.length !== 8 || all.some((g) => !(g >= 0 && g <= 0xffff))) throw new RangeError(`bad IPv6: ${ip}`)
  const out = new Uint8Array(16)
  all.forEach((g, i) => {
    out[2 * i] = g >> 8
    out[2 * i + 1] = g & 0xff
  })
  return out
}
