/**
 * One in-process Firn p2p node for the p2p bench: the real `Network` (libp2p TCP on 127.0.0.1, port 0) with a
 * fresh staking identity and BLS signer, a memory-level database, its own `network` actor, sybil protection
 * off (every connected peer is a validator, so gossiped peers get dialed), and a silent logger.
 */
import { MemoryLevel } from 'memory-level'
import { createActor } from 'xstate'
import { networkMachine } from '../../actors/peers/network.machine.js'
import { SystemId } from '../../actors/system-ids.js'
import type { Database } from '../../src/db/open.js'
import { newSigner } from '../../src/identity/bls.js'
import { newStakingIdentity } from '../../src/identity/staking.js'
import type { Logger } from '../../src/log/logger.js'
import { Network } from '../../src/network/network.js'
import { PeerTable } from '../../src/network/peer-table.js'
import { ValidatorSet } from '../../src/network/validators.js'
import { loopbackNetworkConfig } from '../../test/helpers/network-config.js'

export const P2P_HOST = '127.0.0.1'
export const P2P_NETWORK_ID = 12345

export interface BenchNode {
  nodeId: string
  port: number
  /** connected peers, as info.peers would list them */
  peers: PeerTable
  close(): Promise<void>
}

const quiet = (): void => {}
const silent: Logger = {
  name: 'network',
  verbo: quiet,
  debug: quiet,
  trace: quiet,
  info: quiet,
  warn: quiet,
  error: quiet,
  fatal: quiet,
}

/** Starts a node; `bootstrap` is the `ip:port` and NodeID of the node to dial first. */
export async function startBenchNode(bootstrap?: { ip: string; id: string }): Promise<BenchNode> {
  const identity = newStakingIdentity()
  const peers = new PeerTable()
  const db = new MemoryLevel({ keyEncoding: 'view', valueEncoding: 'view' }) as unknown as Database
  await db.open()
  const validators = new ValidatorSet({
    selfNodeId: identity.nodeId,
    sybilProtectionEnabled: false,
    disabledWeight: 100,
    genesis: [],
    connectedPeers: () => peers.nodeIds(),
  })
  const actor = createActor(networkMachine, { systemId: SystemId.Network })
  actor.start()
  const network = await Network.start({
    config: loopbackNetworkConfig({
      networkId: P2P_NETWORK_ID,
      host: P2P_HOST,
      ...(bootstrap === undefined ? {} : { bootstrap: [bootstrap] }),
    }),
    identity,
    signer: newSigner(),
    db,
    peers,
    validators,
    system: actor.system,
    log: silent,
  })
  return {
    nodeId: identity.nodeId,
    port: network.port,
    peers,
    close: async () => {
      await network.close()
      actor.stop()
      await db.close()
    },
  }
}

/** Writes one JSON line to stdout (the child scripts' protocol with bench/lib/p2p-memory.ts). */
export function say(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`)
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
