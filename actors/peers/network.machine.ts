/**
 * The network actor (`network`): parent of one peer session per connected peer, each spawned with id and
 * systemId `peer:<NodeID>` on `network.openSession` and stopped on `network.closeSession`, and of one benchlist
 * per chain, `benchlist:<alias>` (e.g. `benchlist:C`), spawned on `network.startBenchlist`. Its context lists the
 * NodeIDs with a session and the aliases with a benchlist (JSON-safe). Pure: src/network/ does the IO and drives
 * the sessions and benchlists.
 */
import { assign, enqueueActions, setup } from 'xstate'
import { SystemId } from '../system-ids.js'
import { type BenchlistInput, benchlistMachine } from './benchlist.machine.js'
import { type PeerSessionInput, peerSessionMachine } from './peer-session.machine.js'

export interface NetworkContext {
  /** NodeIDs with a live session, in opening order */
  nodeIds: string[]
  /** primary aliases of the chains with a benchlist, in start order */
  benchlists: string[]
}

export type NetworkEvent =
  | { type: 'network.openSession'; nodeId: string; input: PeerSessionInput }
  | { type: 'network.closeSession'; nodeId: string }
  | { type: 'network.startBenchlist'; alias: string; input: BenchlistInput }

export const networkMachine = setup({
  types: {
    context: {} as NetworkContext,
    events: {} as NetworkEvent,
  },
  actors: {
    peerSession: peerSessionMachine,
    benchlist: benchlistMachine,
  },
  guards: {
    isNew: ({ context, event }) => event.type === 'network.openSession' && !context.nodeIds.includes(event.nodeId),
    isOpen: ({ context, event }) => event.type === 'network.closeSession' && context.nodeIds.includes(event.nodeId),
    isNewBenchlist: ({ context, event }) =>
      event.type === 'network.startBenchlist' && !context.benchlists.includes(event.alias),
  },
}).createMachine({
  id: 'network',
  context: { nodeIds: [], benchlists: [] },
  on: {
    'network.openSession': {
      guard: 'isNew',
      actions: [
        enqueueActions(({ enqueue, event }) => {
          if (event.type !== 'network.openSession') return
          const id = SystemId.peer(event.nodeId)
          enqueue.spawnChild('peerSession', { id, systemId: id, input: { ...event.input, nodeId: event.nodeId } })
        }),
        assign({ nodeIds: ({ context, event }) => [...context.nodeIds, event.nodeId] }),
      ],
    },
    'network.closeSession': {
      guard: 'isOpen',
      actions: [
        enqueueActions(({ enqueue, event }) => {
          enqueue.stopChild(SystemId.peer(event.nodeId))
        }),
        assign({ nodeIds: ({ context, event }) => context.nodeIds.filter((id) => id !== event.nodeId) }),
      ],
    },
    'network.startBenchlist': {
      guard: 'isNewBenchlist',
      actions: [
        enqueueActions(({ enqueue, event }) => {
          const id = SystemId.benchlist(event.alias)
          enqueue.spawnChild('benchlist', { id, systemId: id, input: event.input })
        }),
        assign({ benchlists: ({ context, event }) => [...context.benchlists, event.alias] }),
      ],
    },
  },
})
