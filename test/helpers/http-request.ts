/** A raw HTTP request for tests: full control over method and headers (no default Content-Type), no agent. */
import { request } from 'node:http'

export interface RawReply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

export function sendRaw(url: string, method: string, headers: Record<string, string>, body?: string | Buffer) {
  const { hostname, port, pathname, search } = new URL(url)
  return new Promise<RawReply>((resolve, reject) => {
    // the path as written: URL would normalise `/./` and `//`, which the path tests send on purpose
    const path = url.slice(url.indexOf('/', url.indexOf('//') + 2)) || pathname + search
    const req = request({ hostname, port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
      )
    })
    req.on('error', reject)
    req.end(body)
  })
}
