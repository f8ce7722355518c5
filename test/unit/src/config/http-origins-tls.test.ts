import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { LOOPBACK_ORIGINS } from '../../../../src/api/http/origin-policy.js'
import { decodeBase64Strict } from '../../../../src/config/http-tls.js'
import { loadNodeConfig } from '../../../../src/config/node-config.js'

const env = { HOME: '/home/u' }
const load = (argv: string[]) => loadNodeConfig(argv, env)

describe('--http-trusted-origins', () => {
  it('follows --http-allowed-origins outside --dev, as the reference serves every API alike', () => {
    assert.deepEqual(load([]).http.trustedOrigins, ['*'])
    assert.deepEqual(load(['--http-allowed-origins=https://a.example https://b.example']).http.trustedOrigins, [
      'https://a.example',
      'https://b.example',
    ])
  })

  it('is the loopback origins under --dev, whatever --http-allowed-origins says', () => {
    assert.deepEqual(load(['--dev']).http.trustedOrigins, LOOPBACK_ORIGINS)
    assert.deepEqual(load(['--dev']).http.allowedOrigins, ['*'])
    assert.deepEqual(load(['--dev', '--http-allowed-origins=https://x.example']).http.trustedOrigins, LOOPBACK_ORIGINS)
  })

  it('an explicit list replaces the default; the inspector keeps loopback and adds it', () => {
    const c = load(['--dev', '--http-trusted-origins', 'https://app.example  *'])
    assert.deepEqual(c.http.trustedOrigins, ['https://app.example', '*'])
    assert.deepEqual(c.inspect.origins, [...LOOPBACK_ORIGINS, 'https://app.example', '*'])
    assert.deepEqual(load([]).inspect.origins, LOOPBACK_ORIGINS)
  })
})

describe('--http-tls-*', () => {
  it('is off by default and reads nothing', () => {
    assert.deepEqual(load(['--http-tls-cert-file=/nope']).http.tls, { enabled: false, cert: '', key: '' })
  })

  it('needs both a certificate and a key', () => {
    assert.throws(() => load(['--http-tls-enabled']), { message: /needs a certificate/ })
    const cert = Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64')
    assert.throws(() => load(['--http-tls-enabled', `--http-tls-cert-file-content=${cert}`]), {
      message: /needs a key/,
    })
  })

  it("decodes base64 as Go's StdEncoding: padding required, CR/LF skipped, the first bad byte named", () => {
    assert.equal(decodeBase64Strict('aGk=').toString(), 'hi')
    assert.equal(decodeBase64Strict('aG\r\nk=').toString(), 'hi')
    assert.throws(() => decodeBase64Strict('aGk'), {
      message: 'unable to decode base64 content: illegal base64 data at input byte 0',
    })
    assert.throws(() => decodeBase64Strict('aG*='), {
      message: 'unable to decode base64 content: illegal base64 data at input byte 2',
    })
  })
})
