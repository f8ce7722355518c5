import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type RawRoute, Router } from '../../../../../src/api/http/router.js'
import { FirnError } from '../../../../../src/runtime/errors.js'

const raw = (): RawRoute => ({ kind: 'raw', handle: () => undefined })
const apiError = (message: string) => (err: unknown) => err instanceof FirnError && err.message === message

describe('Router', () => {
  it('resolves exact, case-sensitive paths built from base and endpoint', () => {
    const router = new Router()
    const info = raw()
    const ws = raw()
    router.addRoute('info', '', info)
    router.addRoute('bc/abc', '/ws', ws)
    assert.equal(router.resolve('/ext/info'), info)
    assert.equal(router.resolve('/ext/bc/abc/ws'), ws)
    assert.equal(router.resolve('/ext/Info'), undefined)
    assert.equal(router.resolve('/ext/info/'), undefined)
    assert.equal(router.resolve('/ext/bc/abc'), undefined)
  })

  it('refuses a second route on the same path', () => {
    const router = new Router()
    router.addRoute('info', '', raw())
    assert.throws(
      () => router.addRoute('info', '', raw()),
      apiError('failed to create endpoint as /ext/info already exists'),
    )
  })

  it('an alias serves existing and later endpoints of its base', () => {
    const router = new Router()
    const rpc = raw()
    const ws = raw()
    router.addRoute('bc/cid', '/rpc', rpc)
    router.addAliases('bc/cid', 'C', 'bc/C')
    router.addRoute('bc/cid', '/ws', ws)
    assert.equal(router.resolve('/ext/C/rpc'), rpc)
    assert.equal(router.resolve('/ext/bc/C/rpc'), rpc)
    assert.equal(router.resolve('/ext/C/ws'), ws)
    assert.equal(router.resolve('/ext/bc/C/ws'), ws)
  })

  it('aliasing a base that does not exist yet becomes active when it appears', () => {
    const router = new Router()
    router.addAliases('bc/later', 'L')
    assert.equal(router.resolve('/ext/L'), undefined)
    const route = raw()
    router.addRoute('bc/later', '', route)
    assert.equal(router.resolve('/ext/L'), route)
  })

  it('aliases of aliases follow', () => {
    const router = new Router()
    router.addAliases('bc/x', 'X')
    router.addAliases('X', 'avm')
    const route = raw()
    router.addRoute('bc/x', '', route)
    assert.equal(router.resolve('/ext/avm'), route)
  })

  it('reserves alias names: reuse and real routes on them fail', () => {
    const router = new Router()
    router.addAliases('bc/x', 'X')
    assert.throws(
      () => router.addAliases('bc/y', 'X'),
      apiError('route is either already aliased or already maps to a handle: /ext/X'),
    )
    assert.throws(
      () => router.addRoute('X', '', raw()),
      apiError('route is either already aliased or already maps to a handle: /ext/X'),
    )
    // a failed call reserves nothing
    assert.throws(() => router.addAliases('bc/y', 'fresh', 'X'))
    router.addAliases('bc/y', 'fresh')
  })

  it('aliasing onto an existing real base fails but reserves the name', () => {
    const router = new Router()
    const info = raw()
    const admin = raw()
    router.addRoute('info', '', info)
    router.addRoute('admin', '', admin)
    assert.throws(
      () => router.addAliases('admin', 'info'),
      apiError('failed to create endpoint as /ext/info already exists'),
    )
    assert.equal(router.resolve('/ext/info'), info)
    assert.throws(
      () => router.addAliases('bc/z', 'info'),
      apiError('route is either already aliased or already maps to a handle: /ext/info'),
    )
  })

  it('a real route is not reserved: aliasing onto an unused base name works', () => {
    const router = new Router()
    const route = raw()
    router.addRoute('bc/abc', '', route)
    router.addAliases('bc/abc', 'health2')
    assert.equal(router.resolve('/ext/health2'), route)
  })

  it('a base fallback serves every path under the base and its aliases that has no route of its own', () => {
    const router = new Router()
    const rpc = raw()
    const waiting = raw()
    router.addAliases('bc/abc', 'bc/D')
    router.setFallback('bc/abc', waiting)
    router.addAliases('bc/abc', 'bc/later')
    assert.equal(router.resolve('/ext/bc/abc/kv'), waiting)
    assert.equal(router.resolve('/ext/bc/abc'), waiting)
    assert.equal(router.resolve('/ext/bc/abc/a/b'), waiting)
    assert.equal(router.resolve('/ext/bc/D/rpc'), waiting)
    assert.equal(router.resolve('/ext/bc/later/ws'), waiting)
    // a real route wins; other bases are untouched
    router.addRoute('bc/abc', '/rpc', rpc)
    assert.equal(router.resolve('/ext/bc/abc/rpc'), rpc)
    assert.equal(router.resolve('/ext/bc/D/rpc'), rpc)
    assert.equal(router.resolve('/ext/bc/abcd/rpc'), undefined)
    assert.equal(router.resolve('/ext/bc'), undefined)
    assert.equal(router.resolve('/ext/info'), undefined)
  })
})
