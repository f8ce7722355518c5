/**
 * FirnResponse (src/api/http/response.ts) on a real node:http server on 127.0.0.1: the headers a response owes go
 * out once with its head however the handler writes it, and a handler's own header of the same name wins.
 */
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { FirnResponse } from '../../../../../src/api/http/response.js'

const OWED = { 'Node-Id': 'NodeID-test', Vary: 'Origin' }

/** What each path's handler does with its response (every one owes OWED but /none). */
const handlers: Record<string, (res: FirnResponse) => void> = {
  '/object': (res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 })
    res.end('ok')
  },
  '/message': (res) => {
    res.writeHead(201, 'Made', { 'Content-Length': 2 })
    res.end('ok')
  },
  '/implicit': (res) => {
    res.statusCode = 404
    res.end('no')
  },
  '/set-before': (res) => {
    res.setHeader('Node-Id', 'mine')
    res.setHeader('Content-Length', '2')
    res.writeHead(200)
    res.end('ok')
  },
  '/own-vary': (res) => {
    res.writeHead(200, { vary: 'Accept', 'Content-Length': 2 })
    res.end('ok')
  },
  '/flat': (res) => {
    res.writeHead(200, ['VARY', 'Accept-Encoding', 'Content-Length', '2'])
    res.end('ok')
  },
  '/refused-first': (res) => {
    // a head Node refuses throws before anything is written; the answer that follows still carries what is owed
    assert.throws(() => res.writeHead(200, { 'X-Bad': 'a\nb' }))
    res.writeHead(500, { 'Content-Length': 2 })
    res.end('no')
  },
  '/none': (res) => {
    res.writeHead(200, { 'Content-Length': 2 })
    res.end('ok')
  },
}

interface Seen {
  status: number
  /** every header line, name lower-cased, in order */
  lines: [string, string][]
}

function get(port: number, path: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      const lines: [string, string][] = []
      for (let i = 0; i < res.rawHeaders.length; i += 2)
        lines.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!])
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, lines }))
    })
    req.on('error', reject)
    req.end()
  })
}

const values = (seen: Seen, name: string): string[] => seen.lines.filter(([n]) => n === name).map(([, v]) => v)

describe('FirnResponse', () => {
  const server = createServer({ ServerResponse: FirnResponse }, (req: IncomingMessage, res: FirnResponse) => {
    const path = req.url ?? ''
    if (path !== '/none') res.owe(OWED)
    handlers[path]!(res)
  })
  let port = 0
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('writes the owed headers once with a head given whole, a status message or none at all', async () => {
    for (const [path, status] of [
      ['/object', 200],
      ['/message', 201],
      ['/implicit', 404],
      ['/refused-first', 500],
    ] as const) {
      const seen = await get(port, path)
      assert.equal(seen.status, status, path)
      assert.deepEqual(values(seen, 'node-id'), ['NodeID-test'], path)
      assert.deepEqual(values(seen, 'vary'), ['Origin'], path)
    }
    const whole = await get(port, '/object')
    assert.deepEqual(values(whole, 'content-type'), ['text/plain'])
  })

  it("lets a handler's own header of the same name win, set before or in the head, in any case", async () => {
    const before = await get(port, '/set-before')
    assert.deepEqual(values(before, 'node-id'), ['mine'])
    assert.deepEqual(values(before, 'vary'), ['Origin'])
    const own = await get(port, '/own-vary')
    assert.deepEqual(values(own, 'vary'), ['Accept'])
    assert.deepEqual(values(own, 'node-id'), ['NodeID-test'])
    const flat = await get(port, '/flat')
    assert.deepEqual(values(flat, 'vary'), ['Accept-Encoding'])
    assert.deepEqual(values(flat, 'node-id'), ['NodeID-test'])
  })

  it('owes nothing unless told', async () => {
    const seen = await get(port, '/none')
    assert.deepEqual(values(seen, 'node-id'), [])
    assert.deepEqual(values(seen, 'vary'), [])
  })
})
