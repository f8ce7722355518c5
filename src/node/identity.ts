/**
 * The node's identity and its logs, the first things the composition root opens: the staking TLS key and
 * certificate (the NodeID) and the BLS signer (its proof of possession), loaded or created as the flags say;
 * the log manager with the `main`, `http` and `network` logs, and the start-up lines.
 */
import type { NodeConfig } from '../config/node-config.js'
import { SEMVER } from '../config/version.js'
import { loadOrCreateSigner } from '../identity/bls.js'
import { loadOrCreateStakingIdentity } from '../identity/staking.js'
import { LogManager } from '../log/logger.js'

export async function openIdentity(config: NodeConfig, display?: (line: string) => void) {
  const identity = await loadOrCreateStakingIdentity({
    keyPath: config.staking.keyPath,
    certPath: config.staking.certPath,
    keyExplicit: config.staking.keyExplicit,
    certExplicit: config.staking.certExplicit,
  })
  const signer = await loadOrCreateSigner({
    path: config.staking.signerKeyPath,
    explicit: config.staking.signerExplicit,
  })
  const nodeId = identity.nodeId
  const nodePOP = signer.proofOfPossession()
  const logs = new LogManager({
    dir: config.log.dir,
    level: config.log.level,
    displayLevel: config.log.displayLevel,
    display,
  })
  const log = logs.get('main')
  logs.get('http')
  logs.get('network')
  log.info('starting firn', { version: SEMVER, nodeID: nodeId, networkID: config.networkId, dataDir: config.dataDir })
  log.info('node proof of possession', nodePOP)
  return { identity, signer, nodeId, nodePOP, logs, log }
}
