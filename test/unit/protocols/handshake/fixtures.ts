/** Real keys for the handshake and claim tests: an ECDSA staking identity, an Ed25519 libp2p key, a BLS signer. */
import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { type HandshakeParams, type HandshakeSigners, signIp } from '../../../../protocols/handshake/build.js'
import type { HandshakeVerifiers } from '../../../../protocols/handshake/validate.js'
import { blsSignatureFromBytes, newSigner, verifyProofOfPossession } from '../../../../src/identity/bls.js'
import { nodeIdFromCertDer } from '../../../../src/identity/ids.js'
import {
  checkStakingCert,
  newStakingIdentity,
  signWithStakingKey,
  verifyWithCert,
} from '../../../../src/identity/staking.js'

export const NOW_S = 1_800_000_000
export const UPGRADE_S = 1_763_568_000

export async function makePeer() {
  const staking = newStakingIdentity()
  const libp2pKey = await generateKeyPair('Ed25519')
  const peerId = peerIdFromPrivateKey(libp2pKey)
  const bls = newSigner()
  const signers: HandshakeSigners = {
    signStaking: (m) => signWithStakingKey(staking, m),
    signBls: (m) => bls.signProofOfPossession(m),
  }
  const params: HandshakeParams = {
    networkId: 12345,
    nowS: NOW_S,
    ip: Uint8Array.of(127, 0, 0, 1),
    port: 9651,
    upgradeTimeS: UPGRADE_S,
    ipSigningTimeS: NOW_S - 100,
    trackedSubnets: [new Uint8Array(32).fill(1)],
    client: { name: 'firn', major: 1, minor: 14, patch: 2 },
    supportedAcps: [23, 24],
    objectedAcps: [25],
    allSubnets: true,
    stakingCertDer: staking.certDer,
    libp2pPublicKey: publicKeyToProtobuf(libp2pKey.publicKey),
  }
  return { staking, libp2pKey, peerId, bls, signers, params, signed: signIp(params, signers) }
}

/** Verifiers over src/identity; `blsKeys` maps NodeIDs to registered BLS public keys. */
export function verifiers(blsKeys: Map<string, Uint8Array> = new Map()): Required<HandshakeVerifiers> {
  return {
    checkCert: (der) => {
      checkStakingCert(der)
    },
    nodeIdOf: nodeIdFromCertDer,
    verifyStakingSig: (der, message, sig) => verifyWithCert(der, message, sig),
    isBlsSignature: (sig) => {
      try {
        blsSignatureFromBytes(sig)
        return true
      } catch {
        return false
      }
    },
    verifyBlsSig: (nodeId, message, sig) => {
      const key = blsKeys.get(nodeId)
      return key === undefined || verifyProofOfPossession(key, message, sig)
    },
  }
}
