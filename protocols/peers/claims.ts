/**
 * Checks of a gossiped ClaimedIpPort (reference handlePeerList + ip tracker rules, with the Firn identity
 * binding): certificate, IP, port, timestamp not past now + 60 s, the staking signature over the IP message,
 * and `identity_sig` over the public key inside `peer_id`. "Newer than the one we know" is the caller's check.
 */
import { identityMessage, ip16, ipSigningMessage, ipText, publicKeyOfPeerId } from '../handshake/ip.js'
import { type HandshakeVerifiers, MAX_CLOCK_DIFFERENCE_S } from '../handshake/validate.js'
import type { ClaimedIpPort } from '../messages/p2p.js'

export interface VerifiedClaim {
  nodeId: string
  ip: Uint8Array
  ipText: string
  port: number
  timestamp: number
  /** the claimant's libp2p peer id bytes */
  peerId: Uint8Array
  claim: ClaimedIpPort
}

export type ClaimCheck = { ok: true; claim: VerifiedClaim } | { ok: false; reason: string }

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** Checks one claim; never throws. */
export function validateClaim(
  claim: ClaimedIpPort,
  nowS: number,
  verify: Pick<HandshakeVerifiers, 'checkCert' | 'nodeIdOf' | 'verifyStakingSig'>,
  maxClockDifferenceS = MAX_CLOCK_DIFFERENCE_S,
): ClaimCheck {
  const fail = (reason: string): ClaimCheck => ({ ok: false, reason })
  const cert = claim.x509Certificate
  let nodeId: string
  try {
    verify.checkCert?.(cert)
    nodeId = verify.nodeIdOf(cert)
  } catch (e) {
    return fail(`bad claim certificate: ${errorText(e)}`)
  }
  const ip = ip16(claim.ipAddr)
  if (ip === null) return fail(`bad claim ip: ${claim.ipAddr.length} bytes`)
  if (claim.ipPort === 0 || claim.ipPort > 0xffff) return fail(`bad claim port: ${claim.ipPort}`)
  const maxTimestamp = BigInt(Math.floor(nowS)) + BigInt(maxClockDifferenceS)
  if (claim.timestamp > maxTimestamp) return fail(`claim timestamp too far in the future: ${claim.timestamp}`)
  const publicKey = publicKeyOfPeerId(claim.peerId)
  if (publicKey === null) return fail('bad claim peer id')
  try {
    if (!verify.verifyStakingSig(cert, ipSigningMessage(ip, claim.ipPort, claim.timestamp), claim.signature)) {
      return fail('bad claim ip signature')
    }
    if (!verify.verifyStakingSig(cert, identityMessage(publicKey), claim.identitySig)) {
      return fail('bad claim identity signature')
    }
  } catch (e) {
    return fail(`bad claim signature: ${errorText(e)}`)
  }
  return {
    ok: true,
    claim: {
      nodeId,
      ip,
      ipText: ipText(ip),
      port: claim.ipPort,
      timestamp: Number(claim.timestamp),
      peerId: claim.peerId,
      claim,
    },
  }
}
