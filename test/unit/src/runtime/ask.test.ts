import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type AnyActorRef, createActor, emit, setup } from 'xstate'
import { type Reply, replyError, replyOk } from '../../../../actors/reply.js'
import { ask } from '../../../../src/runtime/ask.js'
import { FirnError } from '../../../../src/runtime/errors.js'

type EchoEvent =
  | { type: 'echo.ok'; requestId: string; value: number }
  | { type: 'echo.fail'; requestId: string }
  | { type: 'echo.noisy'; requestId: string }
  | { type: 'echo.ignore'; requestId: string }

const echoMachine = setup({ types: { events: {} as EchoEvent, emitted: {} as Reply } }).createMachine({
  id: 'echo',
  on: {
    'echo.ok': { actions: emit(({ event }) => replyOk(event.requestId, { value: event.value })) },
    'echo.fail': { actions: emit(({ event }) => replyError(event.requestId, 'cpu profiler already running')) },
    'echo.noisy': {
      actions: [
        emit(() => replyOk('someone-else', { value: -1 })),
        emit(({ event }) => replyOk(event.requestId, { value: 2 })),
      ],
    },
  },
})

/** An echo actor whose `on` subscriptions are counted. */
function countedEcho(systemId = 'echo') {
  const actor = createActor(echoMachine, { systemId })
  const on = actor.on.bind(actor)
  let listeners = 0
  const ref = Object.assign(actor, {
    on: ((type: 'reply', handler: (r: Reply) => void) => {
      const sub = on(type, handler)
      listeners += 1
      return {
        unsubscribe() {
          listeners -= 1
          sub.unsubscribe()
        },
      }
    }) as typeof actor.on,
  })
  ref.start()
  return { ref: ref as unknown as AnyActorRef, listeners: () => listeners, stop: () => actor.stop() }
}

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length

describe('ask', () => {
  it('resolves with the result of the matching reply and cleans up', async () => {
    const echo = countedEcho()
    const before = timers()
    const result = await ask<{ value: number }>(echo.ref, { type: 'echo.ok', value: 7 })
    assert.deepEqual(result, { value: 7 })
    assert.equal(echo.listeners(), 0)
    assert.equal(timers(), before)
    echo.stop()
  })

  it('ignores replies to other requests', async () => {
    const echo = countedEcho()
    assert.deepEqual(await ask(echo.ref, { type: 'echo.noisy' }), { value: 2 })
    echo.stop()
  })

  it('rejects with the plain reply error', async () => {
    const echo = countedEcho()
    const before = timers()
    await assert.rejects(ask(echo.ref, { type: 'echo.fail' }), (e: unknown) => {
      assert.ok(!(e instanceof Error))
      assert.deepEqual(e, { code: -32000, message: 'cpu profiler already running', data: null })
      return true
    })
    assert.equal(echo.listeners(), 0)
    assert.equal(timers(), before)
    echo.stop()
  })

  it('times out with a FirnError when no reply comes', async () => {
    const echo = countedEcho()
    const before = timers()
    await assert.rejects(ask(echo.ref, { type: 'echo.ignore' }, { timeoutMs: 20 }), (e: unknown) => {
      assert.ok(e instanceof FirnError)
      assert.equal(e.message, 'echo.ignore timed out after 20 ms')
      assert.equal(e.code, -32000)
      return true
    })
    assert.equal(echo.listeners(), 0)
    assert.equal(timers(), before)
    echo.stop()
  })

  it('gives each call its own requestId', async () => {
    const echo = countedEcho()
    const results = await Promise.all([1, 2, 3].map((value) => ask(echo.ref, { type: 'echo.ok', value })))
    assert.deepEqual(results, [{ value: 1 }, { value: 2 }, { value: 3 }])
    assert.equal(echo.listeners(), 0)
    echo.stop()
  })

  it('stops waiting when the signal aborts', async () => {
    const echo = countedEcho()
    const controller = new AbortController()
    const pending = ask(echo.ref, { type: 'echo.ignore' }, { signal: controller.signal })
    controller.abort()
    await assert.rejects(pending, (e: unknown) => e instanceof FirnError && e.message === 'echo.ignore aborted')
    assert.equal(echo.listeners(), 0)
    await assert.rejects(
      ask(echo.ref, { type: 'echo.ok', value: 1 }, { signal: controller.signal }),
      (e: unknown) => e instanceof FirnError && e.message === 'echo.ok aborted',
    )
    echo.stop()
  })

  it('refuses at once when the actor is not running', async () => {
    const echo = countedEcho()
    echo.stop()
    await assert.rejects(
      ask(echo.ref, { type: 'echo.ok', value: 1 }),
      (e: unknown) => e instanceof FirnError && e.message === 'echo.ok: actor is not running',
    )
    assert.equal(echo.listeners(), 0)
  })

  it('records round trips per actor name into the stats sink', async () => {
    const echo = countedEcho('profiler')
    const seen: [string, number][] = []
    const stats = { recordAsk: (actorId: string, ms: number) => seen.push([actorId, ms]) }
    await ask(echo.ref, { type: 'echo.ok', value: 1 }, { stats })
    await assert.rejects(ask(echo.ref, { type: 'echo.fail' }, { stats }))
    await assert.rejects(ask(echo.ref, { type: 'echo.ignore' }, { stats, timeoutMs: 5 }))
    assert.deepEqual(
      seen.map(([id]) => id),
      ['profiler', 'profiler', 'profiler'],
    )
    for (const [, ms] of seen) assert.ok(Number.isFinite(ms) && ms >= 0)
    assert.ok((seen[2]?.[1] ?? 0) >= 4)
    echo.stop()
  })
})
