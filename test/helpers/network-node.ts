/**
 * One in-process Firn p2p node for tests and benches: the real `Network` (libp2p TCP on 127.0.0.1, port 0), a
 * staking identity (fresh unless given), a memory-level database (unless given), its own actor tree (this helper
 * is the test's composition root: the node actor with `network` and, per chain given, `chain:<alias>` with its
 * `benchlist:<alias>`; the chains never leave waitingForVm: no VM here), and a validator set: the given genesis
 * with sybil protection on, else sybil protection off (every connected peer a validator of weight 100). Log lines
 * are captured unless a logger is given.
 */
import { MemoryLevel } from 'memory-level'
import { NEVER } from 'rxjs'
import { type ActorRefFrom, createActor, fromEventObservable, fromPromise } from 'xstate'
import {
  type AwaitVmInput,
  type ChainEvent,
  type ChainIoInput,
  chainMachine,
} from '../../actors/chains/chain.machine.js'
import { nodeMachine } from '../../actors/node.machine.js'
import type { networkMachine } from '../../actors/peers/network.machine.js'
import { SystemId } from '../../actors/system-ids.js'
import type { Database } from '../../src/db/open.js'
import { newSigner } from '../../src/identity/bls.js'
import { newStakingIdentity, type StakingIdentity } from '../../src/identity/staking.js'
import type { Logger } from '../../src/log/logger.js'
import { benchlistSettings } from '../../src/network/benching.js'
import { Network, type NetworkOptions } from '../../src/network/network.js'
import type { PeerView } from '../../src/network/peer-view.js'
import { type Validator, ValidatorSet } from '../../src/network/validators.js'
import { captureLog } from './capture-log.js'
import { type LoopbackConfig, loopbackNetworkConfig } from './network-config.js'

type StartExtras = Omit<NetworkOptions, 'config' | 'identity' | 'signer' | 'db' | 'validators' | 'log'>

export interface NetworkNodeOptions extends StartExtras {
  identity?: StakingIdentity
  /** a database to (re)use; the node does not close it */
  db?: Database
  /** genesis validators with sybil protection on; sybil protection off (weight 100 each) when absent */
  genesis?: Validator[]
  /** the loopback config's fields (networkId, bootstrap, dev, ...); `sybilProtection` follows `genesis` */
  config?: Omit<LoopbackConfig, 'sybilProtection'>
  /** a logger instead of the captured lines */
  log?: Logger
}

export interface NetworkNode {
  network: Network
  identity: StakingIdentity
  nodeId: string
  /** the connected peers, as info.peers reads them */
  peers: PeerView
  db: Database
  /** the `network` actor */
  actor: ActorRefFrom<typeof networkMachine>
  /** the root (`node`) actor */
  root: ReturnType<typeof createActor<typeof nodeMachine>>
  /** captured log lines (empty when a logger was given) */
  lines: string[]
  /** closes the network, stops the actors and closes the database the node opened */
  close(): Promise<void>
}

export async function startNetworkNode(o: NetworkNodeOptions = {}): Promise<NetworkNode> {
  const { identity = newStakingIdentity(), db: given, genesis, config, log: givenLog, ...extras } = o
  const db = given ?? (new MemoryLevel({ keyEncoding: 'view', valueEncoding: 'view' }) as unknown as Database)
  await db.open()
  const sybilProtection = genesis !== undefined
  let network: Network | undefined
  const validators = new ValidatorSet({
    selfNodeId: identity.nodeId,
    sybilProtectionEnabled: sybilProtection,
    disabledWeight: 100,
    genesis: genesis ?? [],
    connectedPeers: () => network?.connections.connectedNodeIds() ?? [],
  })
  const captured = captureLog()
  const net = new Network({
    ...extras,
    config: loopbackNetworkConfig({ ...config, sybilProtection }),
    identity,
    signer: newSigner(),
    db,
    validators,
    log: givenLog ?? captured.log,
  })
  network = net
  // the chains wait for their VM for good: their benchlists run, nothing else does
  const chains = (extras.chains ?? []).map(({ chainId, alias }) => ({
    chainId,
    alias,
    vm: 'evm',
    nodeId: identity.nodeId,
    benchlist: { ...benchlistSettings(undefined, extras.snow), ...extras.benchlist },
  }))
  const never = fromPromise<void, AwaitVmInput>(() => new Promise(() => {}))
  const quiet = fromEventObservable<ChainEvent, ChainIoInput>(() => NEVER)
  const idle = chainMachine.provide({ actors: { awaitVm: never, chainIo: quiet } })
  const root = createActor(nodeMachine.provide({ actors: { chain: idle, network: net.logic() } }), {
    input: {
      nodeId: identity.nodeId,
      networkId: config?.networkId ?? 12345,
      network: net.actorInput(await net.loadUptime()),
      chains,
    },
  }).start()
  const actor = root.system.get(SystemId.Network) as ActorRefFrom<typeof networkMachine>
  await net.start(root.system)
  return {
    network: net,
    identity,
    nodeId: identity.nodeId,
    peers: net.peers,
    db,
    actor,
    root,
    lines: givenLog === undefined ? captured.lines : [],
    close: async () => {
      await net.close()
      root.stop()
      if (given === undefined) await db.close()
    },
  }
}
