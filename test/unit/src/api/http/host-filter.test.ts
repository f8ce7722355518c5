import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createHostFilter, splitHost } from '../../../../../src/api/http/host-filter.js'

describe('splitHost (net.SplitHostPort)', () => {
  it('follows Go', () => {
    assert.equal(splitHost('localhost:9650'), 'localhost')
    assert.equal(splitHost('[::1]:9650'), '::1')
    assert.equal(splitHost('localhost:'), 'localhost')
    assert.equal(splitHost('localhost'), undefined)
    assert.equal(splitHost('[::1]'), undefined)
    assert.equal(splitHost('::1'), undefined)
    assert.equal(splitHost('[::1]x:1'), undefined)
    assert.equal(splitHost('a]:1'), undefined)
  })
})

describe('createHostFilter', () => {
  const allowed = createHostFilter(['localhost', 'Node.Example'])

  it('accepts listed names case-insensitively, with or without a port', () => {
    assert.equal(allowed('localhost'), true)
    assert.equal(allowed('LOCALHOST:9650'), true)
    assert.equal(allowed('node.example:1'), true)
    assert.equal(allowed('evil.example'), false)
    assert.equal(allowed('evil.example:9650'), false)
    assert.equal(allowed('localhost.evil'), false)
  })

  it('always accepts an empty Host and IP literals', () => {
    assert.equal(allowed(undefined), true)
    assert.equal(allowed(''), true)
    assert.equal(allowed('127.0.0.1'), true)
    assert.equal(allowed('10.1.2.3:9650'), true)
    assert.equal(allowed('[::1]:9650'), true)
    assert.equal(allowed('::1'), true)
  })

  it('treats what Go cannot parse as an IP as a name', () => {
    // no port inside brackets: SplitHostPort fails and "[::1]" is no IP
    assert.equal(allowed('[::1]'), false)
    // zones and leading zeros are not IPs for net.ParseIP
    assert.equal(allowed('[fe80::1%eth0]:1'), false)
    assert.equal(allowed('010.1.2.3'), false)
  })

  it('is off with *', () => {
    const all = createHostFilter(['localhost', '*'])
    assert.equal(all('evil.example'), true)
  })
})
