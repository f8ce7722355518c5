/**
 * The p2p layer's shared vocabulary: its constants, options and the peer event stream's type. A leaf module:
 * every part of src/network imports it, it imports none of them.
 */
import type { Metrics } from '@libp2p/interface'
import type { AdaptiveTimeoutConfig } from '../../actors/peers/adaptive-timeout.js'
import type { BenchlistConfig } from '../../actors/peers/benchlist.js'
import type { NodeConfig } from '../config/node-config.js'
import type { Database } from '../db/open.js'
import type { StakingIdentity } from '../identity/staking.js'
import type { Logger } from '../log/logger.js'
import type { ValidatorSet } from './validators.js'

/** The minimum compatible Firn version, before and after the upgrade (lead's decision). */
export const MIN_COMPATIBLE_VERSION = { major: 0, minor: 1, patch: 0 } as const
export const GOSSIP_INTERVAL_MS = 2_000
export const BLOOM_RESET_MS = 60_000
export const HANDSHAKE_TIMEOUT_MS = 15_000
export const REQUEST_TIMEOUT_MS = 10_000
export const REDIAL_INITIAL_MS = 1_000
export const REDIAL_MAX_MS = 60_000

/**
 * What the peer sessions tell the rest of the node, as one RxJS stream (`Network.peerEvents$`, from the network
 * actor's `peer.connected` / `peer.disconnected`): the benchlists' validator weights, the chains' engines and
 * bootstrappers subscribe to it.
 */
export type PeerEvent =
  | { type: 'connected'; nodeId: string; at: number }
  | { type: 'disconnected'; nodeId: string; at: number; reason: string }

export interface NetworkOptions {
  config: Pick<
    NodeConfig,
    | 'dev'
    | 'networkId'
    | 'publicIp'
    | 'staking'
    | 'trackSubnets'
    | 'acpSupport'
    | 'acpObject'
    | 'bootstrap'
    | 'sybilProtection'
  > &
    Partial<Pick<NodeConfig, 'networkTimeout' | 'benchlist' | 'ping' | 'appConcurrency'>>
  identity: StakingIdentity
  signer: { signProofOfPossession(message: Uint8Array): Uint8Array }
  db: Database
  validators: ValidatorSet
  log: Logger
  /** the chains that get a benchlist (`benchlist:<alias>`); none when absent */
  chains?: readonly { chainId: string; alias: string }[]
  /** snow K and alphaConfidence, for the benchlist stake cap; the snow defaults (20, 15) when absent */
  snow?: { k: number; alphaConfidence: number }
  /** overrides of the adaptive request timeout and the benchlist (tests); the config's flags otherwise */
  requestTimeout?: Partial<AdaptiveTimeoutConfig>
  benchlist?: Partial<BenchlistConfig>
  /** register the test-only protocols (echo); processes set FIRN_TEST_PROTOCOLS=1 */
  testProtocols?: boolean
  /** the echo handler stays silent while this returns true (FIRN_TEST_ECHO_SILENT=1 for processes) */
  echoSilent?: () => boolean
  /** unix ms; Date.now */
  now?: () => number
  /** [0, 1); Math.random */
  random?: () => number
  gossipIntervalMs?: number
  bloomResetMs?: number
  /** libp2p's metrics component (src/metrics/stream-metrics.ts: bytes per protocol); none when absent */
  metrics?: () => Metrics
}

export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** Runs `f`, logging (at debug) instead of throwing: a failing peer never throws out of the p2p layer. */
export function guarded(log: Pick<Logger, 'debug'>, what: string, f: () => void): void {
  try {
    f()
  } catch (err) {
    log.debug(`${what} failed`, { err })
  }
}
