/**
 * An in-memory network of tx gossipers for the gossip tests: every node sees the same validator set, sends
 * AppGossip straight to the receivers' `onAppGossip` and AppRequests to their `onAppRequest`, and records what
 * it sent. Nodes can be cut off; NodeIDs without a gossiper (outsiders) can be listed as connected.
 */

import type { TxGossiper } from '../../../../../../src/chains/evm/gossip/gossiper.js'
import type { GossipTransport } from '../../../../../../src/chains/evm/gossip/types.js'
import type { Logger } from '../../../../../../src/log/logger.js'
import { captureLog } from '../../../../../helpers/capture-log.js'

export interface SentGossip {
  from: string
  to: readonly string[]
  bytes: Uint8Array
}

export class MemoryGossipNet {
  readonly nodes = new Map<string, TxGossiper>()
  /** NodeID -> weight; missing or 0 = not a validator */
  readonly weights = new Map<string, bigint>()
  /** extra connected NodeIDs that have no gossiper */
  readonly outsiders = new Set<string>()
  readonly cut = new Set<string>()
  readonly gossip: SentGossip[] = []
  readonly requests: { from: string; to: string }[] = []

  transport(self: string): GossipTransport {
    return {
      self,
      validators: () => [...this.weights].map(([nodeId, weight]) => ({ nodeId, weight })),
      connectedNodeIds: () =>
        this.cut.has(self)
          ? []
          : [...this.nodes.keys(), ...this.outsiders].filter((id) => id !== self && !this.cut.has(id)),
      appGossip: (nodeIds, bytes) => {
        this.gossip.push({ from: self, to: [...nodeIds], bytes })
        for (const id of nodeIds) this.nodes.get(id)?.onAppGossip(self, bytes)
      },
      appRequest: async (nodeId, bytes) => {
        this.requests.push({ from: self, to: nodeId })
        const node = this.nodes.get(nodeId)
        if (node === undefined || this.cut.has(nodeId)) throw new Error('not connected')
        return node.onAppRequest(self, bytes)
      },
    }
  }

  sentBy(nodeId: string): SentGossip[] {
    return this.gossip.filter((g) => g.from === nodeId)
  }
}

/** A logger that keeps its lines (the gossiper's log). */
export function quietLogger(): Logger & { lines: string[] } {
  const { log, lines } = captureLog('C')
  return Object.assign(log, { lines })
}
