/**
 * The container a Snowman block travels in: the VM's block bytes plus the proposer's staking certificate and its
 * staking-key signature (the reference's proposervm outer block carries the same two fields). The block ID stays
 * the VM's (the EVM block hash): the signature covers `chainID || blockID` under a domain tag, so a block cannot be
 * replayed on another chain. An unsigned container has an empty certificate and signature (blocks with no
 * proposer set, and blocks accepted before their signature was kept).
 *
 * Encoding: version byte 0, then three uvarint-length-prefixed fields (block, certificate, signature). Decoding is
 * strict and bounded.
 */
import { createHash } from 'node:crypto'
import { type StakingIdentity, signWithStakingKey, verifyWithCert } from '../../identity/staking.js'
import { checkStakingCert, MAX_CERTIFICATE_LEN, type StakingCert } from '../../identity/staking-cert.js'

export interface SignedBlock {
  block: Uint8Array
  certificate: Uint8Array
  signature: Uint8Array
}

const VERSION = 0
/** a block never exceeds the 2 MiB frame it travels in */
export const MAX_BLOCK_BYTES = 2 * 1024 * 1024
/** an RSA-4096 signature is 512 bytes; ECDSA P-256 DER at most 72 */
export const MAX_SIGNATURE_BYTES = 1024
const DOMAIN = new TextEncoder().encode('firn/snowman-block/v1')

export class SignedBlockError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SignedBlockError'
  }
}

function putUvarint(out: number[], n: number): void {
  let v = n
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80)
    v = Math.floor(v / 128)
  }
  out.push(v)
}

export function encodeSignedBlock(b: SignedBlock): Uint8Array {
  const head: number[] = [VERSION]
  const parts: Uint8Array[] = []
  for (const field of [b.block, b.certificate, b.signature]) {
    const len: number[] = []
    putUvarint(len, field.length)
    parts.push(Uint8Array.from(len), field)
  }
  const total = head.length + parts.reduce((n, p) => n + p.length, 0)
  const out = new Uint8Array(total)
  out[0] = VERSION
  let at = 1
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

export function decodeSignedBlock(bytes: Uint8Array): SignedBlock {
  if (bytes.length === 0 || bytes[0] !== VERSION) throw new SignedBlockError('unknown block container version')
  let at = 1
  const field = (name: string, max: number): Uint8Array => {
    let len = 0
    let shift = 1
    for (let i = 0; ; i++) {
      if (at >= bytes.length || i > 4) throw new SignedBlockError(`truncated ${name} length`)
      const byte = bytes[at++] as number
      len += (byte & 0x7f) * shift
      shift *= 128
      if (byte < 0x80) break
    }
    if (len > max) throw new SignedBlockError(`${name} too large: ${len} bytes`)
    if (at + len > bytes.length) throw new SignedBlockError(`truncated ${name}`)
    const out = bytes.subarray(at, at + len)
    at += len
    return out
  }
  const block = field('block', MAX_BLOCK_BYTES)
  const certificate = field('certificate', MAX_CERTIFICATE_LEN)
  const signature = field('signature', MAX_SIGNATURE_BYTES)
  if (at !== bytes.length) throw new SignedBlockError('trailing bytes after the block container')
  if ((certificate.length === 0) !== (signature.length === 0)) {
    throw new SignedBlockError('a signed block needs both a certificate and a signature')
  }
  return { block, certificate, signature }
}

/** What the proposer signs: sha256(domain || chainID || blockID). */
function signedMessage(chainId: Uint8Array, blockId: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(DOMAIN).update(chainId).update(blockId).digest())
}

export function signBlock(
  identity: Pick<StakingIdentity, 'privateKey' | 'certDer'>,
  chainId: Uint8Array,
  blockId: Uint8Array,
  block: Uint8Array,
): SignedBlock {
  return {
    block,
    certificate: identity.certDer,
    signature: signWithStakingKey(identity, signedMessage(chainId, blockId)),
  }
}

/** Parsed certificates by their bytes: every validator signs with the same certificate every time. */
const certCache = new Map<string, StakingCert>()
const CERT_CACHE_MAX = 1024

function parseCert(der: Uint8Array): StakingCert {
  const key = Buffer.from(der).toString('base64')
  const hit = certCache.get(key)
  if (hit !== undefined) return hit
  const cert = checkStakingCert(der)
  if (certCache.size >= CERT_CACHE_MAX) certCache.delete(certCache.keys().next().value as string)
  certCache.set(key, cert)
  return cert
}

/**
 * The NodeID that signed the container, undefined if it is unsigned. Throws SignedBlockError for a bad certificate
 * or a signature that does not verify.
 */
export function signerOf(b: SignedBlock, chainId: Uint8Array, blockId: Uint8Array): string | undefined {
  if (b.certificate.length === 0) return undefined
  let cert: StakingCert
  try {
    cert = parseCert(b.certificate)
  } catch (err) {
    throw new SignedBlockError(`invalid proposer certificate: ${err instanceof Error ? err.message : String(err)}`)
  }
  if (!verifyWithCert(cert, signedMessage(chainId, blockId), b.signature)) {
    throw new SignedBlockError('invalid proposer signature')
  }
  return cert.nodeId
}
