/**
 * `/ext/info`: the thirteen info methods with the reference's result shapes (reference/node-api.md section 3).
 * Queries only: each method reads config, identity, registries, actor snapshots or the peer table.
 */
import type { ChainRegistry } from '../../chains/registry.js'
import type { VmRegistry } from '../../chains/vm-registry.js'
import { txFees } from '../../config/fees.js'
import type { NodeConfig } from '../../config/node-config.js'
import { upgradeSchedule } from '../../config/upgrades.js'
import { DATABASE_VERSION, gitCommit, RPC_PROTOCOL_VERSION, VERSION_STRING } from '../../config/version.js'
import { nodeIdFromString, nodeIdToString } from '../../identity/ids.js'
import type { Logger } from '../../log/logger.js'
import type { PeerSource } from '../../network/peer-view.js'
import type { ValidatorSet } from '../../network/validators.js'
import { array, custom, fields, noParams, optional, str } from '../../rpc/params.js'
import { defineMethod, type RpcService } from '../../rpc/service.js'
import { FirnError } from '../../runtime/errors.js'
import { tallyAcps } from './acps.js'
import { peerEntry } from './peers.js'
import { computeUptime } from './uptime.js'

export interface InfoDeps {
  config: Pick<
    NodeConfig,
    'networkId' | 'networkName' | 'publicIp' | 'staking' | 'fees' | 'uptimeRequirement' | 'acpSupport' | 'acpObject'
  >
  nodeId: string
  nodePOP: { publicKey: string; proofOfPossession: string }
  /** the staking port actually bound (the configured one until the p2p layer binds) */
  stakingPort: () => number
  chains: ChainRegistry
  vms: VmRegistry
  /** true when the chain has a lifecycle actor in normal operation */
  isChainBootstrapped: (chainId: string) => boolean
  peers: PeerSource
  validators: ValidatorSet
  log: Logger
}

const nodeIdParam = custom((v) => {
  if (typeof v !== 'string') throw new Error('not a string')
  return nodeIdToString(nodeIdFromString(v))
}, '')

export function infoService(d: InfoDeps): RpcService {
  return {
    name: 'info',
    methods: {
      GetNodeVersion: defineMethod(noParams, () => ({
        version: VERSION_STRING,
        databaseVersion: DATABASE_VERSION,
        rpcProtocolVersion: RPC_PROTOCOL_VERSION,
        gitCommit: gitCommit(),
        vmVersions: Object.fromEntries(
          d.vms
            .list()
            .map((vm) => [d.vms.primaryAlias(vm.id), vm.version] as const)
            .sort(([a], [b]) => (a < b ? -1 : 1)),
        ),
      })),
      GetNodeID: defineMethod(noParams, () => ({ nodeID: d.nodeId, nodePOP: d.nodePOP })),
      GetNodeIP: defineMethod(noParams, () => ({ ip: formatAddr(d.config.publicIp, d.stakingPort()) })),
      GetNetworkID: defineMethod(noParams, () => ({ networkID: String(d.config.networkId) })),
      GetNetworkName: defineMethod(noParams, () => ({ networkName: d.config.networkName })),
      GetBlockchainID: defineMethod(fields({ alias: str }), ({ alias }) => ({
        blockchainID: d.chains.aliaser.lookup(alias),
      })),
      IsBootstrapped: defineMethod(fields({ chain: str }), ({ chain }) => {
        if (chain === '') throw new FirnError("argument 'chain' not given")
        const chainId = d.chains.aliaser.tryLookup(chain)
        if (chainId === undefined) throw new FirnError(`there is no chain with alias/ID '${chain}'`)
        return { isBootstrapped: d.chains.get(chainId) !== undefined && d.isChainBootstrapped(chainId) }
      }),
      Peers: defineMethod(fields({ nodeIDs: optional(array(nodeIdParam)) }), ({ nodeIDs }) => {
        const peers =
          nodeIDs === undefined || nodeIDs.length === 0
            ? d.peers.list()
            : nodeIDs.flatMap((id) => {
                const p = d.peers.get(id)
                return p ? [p] : []
              })
        return { numPeers: String(peers.length), peers: peers.map(peerEntry) }
      }),
      Uptime: defineMethod(noParams, () =>
        computeUptime({
          selfWeight: d.validators.weight(d.nodeId),
          totalWeight: d.validators.totalWeight(),
          requirement: d.config.uptimeRequirement,
          peers: d.peers
            .list()
            .map((p) => ({ weight: d.validators.weight(p.nodeId), observedUptime: p.observedUptime })),
        }),
      ),
      Upgrades: defineMethod(noParams, () => upgradeSchedule(d.config.networkId)),
      GetTxFee: defineMethod(noParams, () => {
        d.log.warn('deprecated API called', { method: 'info.getTxFee' })
        return txFees(d.config.networkId, {
          txFee: BigInt(d.config.fees.txFee),
          createAssetTxFee: BigInt(d.config.fees.createAssetTxFee),
        })
      }),
      GetVMs: defineMethod(noParams, () => ({
        vms: Object.fromEntries(
          d.vms
            .list()
            .sort((a, b) => (a.id < b.id ? -1 : 1))
            .map((vm) => [vm.id, d.vms.aliases(vm.id).filter((a) => a !== vm.id)]),
        ),
        fxs: {},
      })),
      Acps: defineMethod(noParams, () => {
        const self = {
          nodeId: d.nodeId,
          weight: d.validators.weight(d.nodeId),
          supported: d.config.acpSupport,
          objected: d.config.acpObject,
        }
        const peers = d.peers.list().map((p) => ({
          nodeId: p.nodeId,
          weight: d.validators.weight(p.nodeId),
          supported: p.supportedACPs,
          objected: p.objectedACPs,
        }))
        return tallyAcps([self, ...peers], d.validators.totalWeight())
      }),
    },
  }
}

const formatAddr = (ip: string, port: number) => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`)
