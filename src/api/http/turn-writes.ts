/**
 * JSON-RPC answers written together at the end of the event loop's turn (its check phase, one `setImmediate`), not
 * each one as its call completes. libuv hands the server every request that arrived since the last poll; answering
 * them one by one, between the reads of the next ones, made every `writev` wake a client that had gone back to
 * sleep, and on this 2-core VM a wake-up of another core's task costs ~10 us of the writer's system time: twice a
 * bare node:http server's per-request total. Written back to back, the first answer wakes the client and the rest
 * find it running (docs/performance.md, "Fourth round"). An answer waits at most for the rest of the turn
 * it was made in; a response whose connection closed meanwhile is skipped.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'

/** response, status, head, body: four slots per answer */
let queued: unknown[] = []

function flush(): void {
  const answers = queued
  queued = []
  for (let i = 0; i < answers.length; i += 4) {
    const res = answers[i] as ServerResponse
    if (res.destroyed) continue
    try {
      res.writeHead(answers[i + 1] as number, answers[i + 2] as OutgoingHttpHeaders)
      res.end(answers[i + 3] as string | Buffer)
    } catch {
      // a response that cannot be written (its socket failed under it) does not keep the others from theirs
      res.destroy()
    }
  }
}

/**
 * Writes `status`, the whole `head` and `body` as one answer at the end of this turn. The head as one object, with no
 * header set on `res` before: Node writes it as it is (response.ts).
 */
export function writeAtTurnEnd(
  res: ServerResponse,
  status: number,
  head: OutgoingHttpHeaders,
  body: string | Buffer,
): void {
  queued.push(res, status, head, body)
  if (queued.length === 4) setImmediate(flush)
}
