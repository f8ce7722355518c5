import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { writeAtTurnEnd } from '../../../../../src/api/http/turn-writes.js'

interface Answer {
  status: number
  body: string
}

/** A GET on a fresh connection; resolves with the answer, or rejects when the connection fails. */
function get(port: number, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => {
        body += c
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('writeAtTurnEnd', () => {
  /** requests held until `release` answers them all in one turn */
  const held: { path: string; res: ServerResponse }[] = []
  let release: (() => void) | undefined
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    held.push({ path: req.url ?? '', res })
    release?.()
  })
  let port = 0

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  /** waits until `n` requests are held */
  const hold = (n: number): Promise<void> =>
    new Promise((resolve) => {
      release = () => {
        if (held.length >= n) resolve()
      }
      release()
    })

  it('writes the answers at the end of the turn, not when they are queued', async () => {
    const answer = get(port, '/one')
    await hold(1)
    const { res } = held.splice(0)[0]!
    writeAtTurnEnd(res, 200, { 'Content-Type': 'text/plain', 'Content-Length': 2 }, 'ok')
    assert.equal(res.headersSent, false, 'nothing is written while the turn goes on')
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(res.headersSent, true)
    assert.deepEqual(await answer, { status: 200, body: 'ok' })
  })

  it('answers the others of a turn when one connection closed and one response cannot be written', async () => {
    const answers = [get(port, '/gone'), get(port, '/bad'), get(port, '/fine')].map((p) =>
      p.then(
        (a) => a,
        (err: Error) => err,
      ),
    )
    await hold(3)
    const byPath = new Map(held.splice(0).map((h) => [h.path, h.res]))
    writeAtTurnEnd(byPath.get('/gone')!, 200, { 'Content-Length': 4 }, 'gone')
    // a header value Node refuses: writeHead throws in the flush
    writeAtTurnEnd(byPath.get('/bad')!, 200, { 'X-Bad': 'a\nb', 'Content-Length': 3 }, 'bad')
    writeAtTurnEnd(byPath.get('/fine')!, 201, { 'Content-Length': 4 }, 'fine')
    byPath.get('/gone')!.destroy()
    const [gone, bad, fine] = await Promise.all(answers)
    assert.ok(gone instanceof Error, 'the closed connection got no answer')
    assert.ok(bad instanceof Error, 'the response that could not be written was closed')
    assert.deepEqual(fine, { status: 201, body: 'fine' })
  })
})
