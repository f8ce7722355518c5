import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cleanPath, escapePath, needsCleaning, parseRequestTarget } from '../../../../../src/api/http/path.js'

describe('parseRequestTarget', () => {
  it('splits path and query and percent-decodes the path', () => {
    assert.deepEqual(parseRequestTarget('/ext/info'), { path: '/ext/info', query: '' })
    assert.deepEqual(parseRequestTarget('/ext/info?a=%20b'), { path: '/ext/info', query: 'a=%20b' })
    assert.deepEqual(parseRequestTarget('/ext/%69nfo'), { path: '/ext/info', query: '' })
    assert.deepEqual(parseRequestTarget('/a+b%2Fc'), { path: '/a+b/c', query: '' })
  })

  it('handles the absolute form', () => {
    assert.deepEqual(parseRequestTarget('http://localhost:9650/ext/info?x'), { path: '/ext/info', query: 'x' })
    assert.deepEqual(parseRequestTarget('http://localhost'), { path: '/', query: '' })
  })

  it('rejects bad escapes and other forms', () => {
    assert.equal(parseRequestTarget('/ext/%zz'), undefined)
    assert.equal(parseRequestTarget('/ext/%4'), undefined)
    assert.equal(parseRequestTarget('*'), undefined)
  })
})

describe('cleanPath', () => {
  const cases: Array<[string, string]> = [
    ['/ext/info', '/ext/info'],
    ['//ext/info', '/ext/info'],
    ['/ext//info', '/ext/info'],
    ['/ext/./info', '/ext/info'],
    ['/ext/x/../info', '/ext/info'],
    ['/../ext/info', '/ext/info'],
    ['/ext/info/', '/ext/info/'],
    ['/ext/info//', '/ext/info/'],
    ['/ext/info/.', '/ext/info'],
    ['/ext/..', '/'],
    ['/', '/'],
    ['', '/'],
  ]
  for (const [input, output] of cases) {
    it(`${input} -> ${output}`, () => {
      assert.equal(cleanPath(input), output)
      if (input !== '') assert.equal(needsCleaning(input), input !== output)
    })
  }
})

describe('escapePath', () => {
  it('escapes like Go url.EscapedPath', () => {
    assert.equal(escapePath('/ext/info'), '/ext/info')
    assert.equal(escapePath('/a b/é?#'), '/a%20b/%C3%A9%3F%23')
    assert.equal(escapePath("/$&+,:;=@-_.~!*'()"), '/$&+,:;=@-_.~%21%2A%27%28%29')
  })
})
