/**
 * HTTPS for the API server, with the reference's flags: `--http-tls-enabled`, the PEM certificate from
 * `--http-tls-cert-file-content` (base64, as the reference decodes it with Go's standard encoding) or else
 * `--http-tls-cert-file`, and the key the same way from `--http-tls-key-file(-content)`. The pair is checked here,
 * before the node writes anything: a missing file, bad base64, text that is not PEM or a key that does not match
 * the certificate stops start-up with the cause and where the bytes came from.
 */
import { readFileSync } from 'node:fs'
import { createSecureContext } from 'node:tls'
import type { FlagName } from './flags.js'
import { ConfigError, type RawConfig } from './sources.js'

export interface HttpTlsConfig {
  enabled: boolean
  /** PEM texts ('' when disabled); admin.getConfig leaves them out, as the reference does */
  cert: string
  key: string
}

const BASE64 = /^[A-Za-z0-9+/]*$/

/** Go's `base64.StdEncoding.DecodeString`: CR and LF are skipped, padding is required, anything else is refused. */
export function decodeBase64Strict(text: string): Buffer {
  const body = text.replace(/[\r\n]/g, '')
  const unpadded = body.replace(/={1,2}$/, '')
  let bad = -1
  for (let i = 0; i < unpadded.length; i++) {
    if (!BASE64.test(unpadded[i]!)) {
      bad = i
      break
    }
  }
  if (bad === -1 && body.length % 4 !== 0) bad = body.length - (body.length % 4)
  if (bad !== -1) throw new ConfigError(`unable to decode base64 content: illegal base64 data at input byte ${bad}`)
  return Buffer.from(body, 'base64')
}

interface Part {
  pem: string
  from: string
}

function readPart(
  raw: RawConfig,
  path: (name: FlagName) => string,
  what: 'cert' | 'key',
  contentFlag: FlagName,
  fileFlag: FlagName,
): Part | undefined {
  if (raw.isSet(contentFlag)) {
    return { pem: decodeBase64Strict(raw.get<string>(contentFlag)).toString('utf8'), from: `--${contentFlag}` }
  }
  if (raw.isSet(fileFlag) && raw.get<string>(fileFlag) !== '') {
    const file = path(fileFlag)
    try {
      return { pem: readFileSync(file, 'utf8'), from: `--${fileFlag} ${file}` }
    } catch (err) {
      throw new ConfigError(`couldn't read the HTTPS ${what} file ${file}: ${(err as Error).message}`)
    }
  }
  return undefined
}

export function httpTlsConfig(raw: RawConfig, path: (name: FlagName) => string): HttpTlsConfig {
  if (!raw.get<boolean>('http-tls-enabled')) return { enabled: false, cert: '', key: '' }
  const cert = readPart(raw, path, 'cert', 'http-tls-cert-file-content', 'http-tls-cert-file')
  const key = readPart(raw, path, 'key', 'http-tls-key-file-content', 'http-tls-key-file')
  if (cert === undefined) {
    throw new ConfigError(
      '--http-tls-enabled needs a certificate: set --http-tls-cert-file or --http-tls-cert-file-content',
    )
  }
  if (key === undefined) {
    throw new ConfigError('--http-tls-enabled needs a key: set --http-tls-key-file or --http-tls-key-file-content')
  }
  try {
    createSecureContext({ cert: cert.pem, key: key.pem, minVersion: 'TLSv1.2' })
  } catch (err) {
    throw new ConfigError(`invalid HTTPS certificate or key (${cert.from}, ${key.from}): ${(err as Error).message}`)
  }
  return { enabled: true, cert: cert.pem, key: key.pem }
}
