/**
 * Waiting in tests: `until` polls a condition, `requestFailure` awaits a tracked request that must fail.
 */
import assert from 'node:assert/strict'
import { RequestFailedError } from '../../src/network/request-tracker.js'

/**
 * Polls `f` every `everyMs` until it returns a value other than undefined; fails with `what` (and the last error
 * `f` threw, if any) after `ms`.
 */
export async function until<T>(
  what: string,
  f: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + ms
  let last: unknown
  while (Date.now() < deadline) {
    try {
      const v = await f()
      if (v !== undefined) return v
    } catch (err) {
      last = err
    }
    await new Promise((r) => setTimeout(r, everyMs))
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`)
}

/** The RequestFailedError `p` rejects with; fails the test if it resolves or rejects with anything else. */
export async function requestFailure(p: Promise<unknown>): Promise<RequestFailedError> {
  try {
    await p
  } catch (err) {
    assert.ok(err instanceof RequestFailedError, String(err))
    return err
  }
  assert.fail('the request succeeded')
}
