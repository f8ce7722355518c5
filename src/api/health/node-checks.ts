/**
 * The node's health checks (the reference's node.initHealthAPI and chains/manager.go), each reading a store or a
 * snapshot: `database` (a read of the version marker), `network` (connected peers and connected stake),
 * `bootstrapped` (readiness and health: the subnets whose chains still bootstrap), and one check per chain named
 * by its primary alias and tagged with its subnet (src/api/health/chain-check.ts).
 */
import type { Database } from '../../db/open.js'
import { Sublevel } from '../../db/sublevels.js'
import { APPLICATION_TAG, type CheckOutcome, type HealthChecker } from './checker.js'

/** the primary network's subnet ID: every chain Firn runs belongs to it */
export const PRIMARY_NETWORK_ID = '11111111111111111111111111111111LpoYY'

/** the reference's MinPercentConnectedBuffer */
const MIN_PERCENT_CONNECTED_BUFFER = 0.2

/** The stake fraction a chain needs connected to stay healthy (the reference's MinPercentConnectedHealthy). */
export function minPercentConnectedHealthy(snow: { k: number; alphaConfidence: number }): number {
  const alphaRatio = snow.alphaConfidence / snow.k
  return alphaRatio * (1 - MIN_PERCENT_CONNECTED_BUFFER) + MIN_PERCENT_CONNECTED_BUFFER
}

export interface NetworkHealthSource {
  selfNodeId: string
  /** the validators and their weights (this node among them when it validates) */
  validators(): readonly { nodeId: string; weight: bigint }[]
  connectedPeers(): readonly string[]
  /** `--network-health-min-conn-peers` */
  minConnectedPeers: number
  /** fraction of the stake that must be connected (this node's own counts) */
  minPercentConnected: number
}

/** Go's %f */
const goF = (x: number) => x.toFixed(6)

export function networkCheck(src: NetworkHealthSource): CheckOutcome {
  const peers = src.connectedPeers()
  const connected = new Set([src.selfNodeId, ...peers])
  let total = 0n
  let up = 0n
  const disconnectedValidators: string[] = []
  for (const v of src.validators()) {
    total += v.weight
    if (connected.has(v.nodeId)) up += v.weight
    else if (v.weight > 0n) disconnectedValidators.push(v.nodeId)
  }
  // no stake at all: nothing to be connected to
  const percentConnected = total === 0n ? 1 : Number((up * 1_000_000n) / total) / 1_000_000
  const details = {
    connectedPeers: peers.length,
    percentConnected,
    disconnectedValidators: disconnectedValidators.sort(),
  }
  const reasons: string[] = []
  if (peers.length < src.minConnectedPeers)
    reasons.push(`not connected to a minimum of ${src.minConnectedPeers} peer(s) only ${peers.length}`)
  if (percentConnected < src.minPercentConnected)
    reasons.push(
      `not connected to enough stake: connected to ${goF(percentConnected * 100)}%; required at least ${goF(src.minPercentConnected * 100)}%`,
    )
  return reasons.length === 0
    ? { details }
    : { details, error: `network layer is unhealthy reason: ${reasons.join(', ')}` }
}

/** A read of the database's version marker (`!node!version`): it must answer, and with this Firn's version. */
export async function databaseCheck(db: Database, version: string): Promise<CheckOutcome> {
  if (db.status !== 'open') return { details: undefined, error: `database is ${db.status}` }
  const meta = db.sublevel<string, string>(Sublevel.node, { keyEncoding: 'utf8', valueEncoding: 'utf8' })
  const stored = await meta.get('version')
  if (stored !== version)
    return {
      details: { databaseVersion: stored ?? null },
      error: `the database's version marker reads ${stored === undefined ? 'nothing' : stored}, not ${version}`,
    }
  return { details: { databaseVersion: stored } }
}

/** The reference's `bootstrapped` check: the subnets (here only the primary network) whose chains still bootstrap. */
export function bootstrappedCheck(bootstrapping: () => readonly string[]): CheckOutcome {
  const chains = bootstrapping()
  return chains.length === 0 ? { details: [] } : { details: [PRIMARY_NETWORK_ID], error: 'subnets not bootstrapped' }
}

export interface NodeChecks {
  db: Database
  databaseVersion: string
  network: NetworkHealthSource
  /** aliases of the chains still initializing or bootstrapping (not those waiting for a VM, failed or stopped) */
  bootstrapping: () => readonly string[]
}

/** Registers the node-wide checks, all as application checks (every query includes them). */
export function registerNodeChecks(checker: HealthChecker, d: NodeChecks): void {
  const app = [APPLICATION_TAG]
  checker.register('health', 'database', () => databaseCheck(d.db, d.databaseVersion), app)
  checker.register('health', 'network', () => networkCheck(d.network), app)
  checker.register('readiness', 'bootstrapped', () => bootstrappedCheck(d.bootstrapping), app)
  checker.register('health', 'bootstrapped', () => bootstrappedCheck(d.bootstrapping), app)
}
