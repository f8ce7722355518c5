/**
 * The network actor (`network`): parent of one peer session per connected peer, each spawned with id and
 * systemId `peer:<NodeID>` on `network.openSession` and stopped on `network.closeSession`. Its context lists the
 * NodeIDs with a session (JSON-safe). Pure: src/network/network.ts does the IO and drives the sessions.
 */
import { assign, enqueueActions, setup } from 'xstate'
import { SystemId } from '../system-ids.js'
import { type PeerSessionInput, peerSessionMachine } from './peer-session.machine.js'

export interface NetworkContext {
  /** NodeIDs with a live session, in opening order */
  nodeIds: string[]
}

export type NetworkEvent =
  | { type: 'network.openSession'; nodeId: string; input: PeerSessionInput }
  | { type: 'network.closeSession'; nodeId: string }

export const networkMachine = setup({
  types: {
    context: {} as NetworkContext,
    events: {} as NetworkEvent,
  },
  actors: {
    peerSession: peerSessionMachine,
  },
  guards: {
    isNew: ({ context, event }) => !context.nodeIds.includes(event.nodeId),
    isOpen: ({ context, event }) => context.nodeIds.includes(event.nodeId),
  },
}).createMachine({
  id: 'network',
  context: { nodeIds: [] },
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
  },
})
