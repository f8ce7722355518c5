/**
 * Reading a request body under a size cap. A declared Content-Length over the cap fails before anything
 * is read; a streamed body fails as soon as it passes the cap, and no byte past the cap is kept.
 */
import type { IncomingMessage } from 'node:http'

export type BodyOutcome = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' | 'aborted' }

const EMPTY = Buffer.alloc(0)

/** Callback style: the hot path allocates no promise. `done` is called exactly once. */
export function readBody(req: IncomingMessage, cap: number, done: (outcome: BodyOutcome) => void): void {
  const declared = req.headers['content-length']
  if (declared !== undefined && Number(declared) > cap) {
    done({ ok: false, reason: 'too-large' })
    return
  }
  const chunks: Buffer[] = []
  let size = 0
  let settled = false
  const settle = (outcome: BodyOutcome): void => {
    if (settled) return
    settled = true
    req.removeListener('data', onData)
    done(outcome)
  }
  const onData = (chunk: Buffer): void => {
    size += chunk.length
    if (size > cap) {
      chunks.length = 0
      settle({ ok: false, reason: 'too-large' })
      return
    }
    chunks.push(chunk)
  }
  req.on('data', onData)
  req.once('end', () => {
    const body = chunks.length === 1 ? chunks[0]! : chunks.length === 0 ? EMPTY : Buffer.concat(chunks, size)
    settle({ ok: true, body })
  })
  req.once('close', () => settle({ ok: false, reason: 'aborted' }))
}
