/**
 * The root of the actor system: spawns the node's profiler, the network actor (parent of the peer sessions) and
 * one lifecycle actor per chain, each under a systemId (`profiler`, `network`, `chain:<alias>`) so services find
 * them with `system.get(...)`. A chain actor is the parent of its own actors (benchlist, profiler, bootstrapper,
 * engine: actors/chains/chain.machine.ts). Pure: the composition root `provide`s the chain, profiler and network
 * logic with their IO slots filled.
 */
import { assign, enqueueActions, setup } from 'xstate'
import { type ChainInput, chainMachine } from './chains/chain.machine.js'
import { type NetworkInput, networkMachine } from './peers/network.machine.js'
import { profilerMachine } from './profiler/profiler.machine.js'
import { SystemId } from './system-ids.js'

export interface NodeInput {
  nodeId: string
  networkId: number
  /** the network actor's input (peers, uptime) */
  network: NetworkInput
  chains: ChainInput[]
}

export interface NodeContext {
  nodeId: string
  networkId: number
  /** the network actor's input until it is spawned (then null: the network actor owns that state) */
  network: NetworkInput | null
  /** chains with a lifecycle actor, in creation order */
  chains: ChainInput[]
}

export type NodeEvent = { type: 'node.createChain'; chain: ChainInput } | { type: 'node.shutdown' }

export const nodeMachine = setup({
  types: {
    input: {} as NodeInput,
    context: {} as NodeContext,
    events: {} as NodeEvent,
  },
  actors: {
    chain: chainMachine,
    profiler: profilerMachine,
    network: networkMachine,
  },
  actions: {
    spawnChain: enqueueActions(({ enqueue }, chain: ChainInput) => {
      enqueue.spawnChild('chain', { id: `chain:${chain.alias}`, systemId: SystemId.chain(chain.alias), input: chain })
    }),
  },
  guards: {
    isNewChain: ({ context }, params: { chainId: string }) => !context.chains.some((c) => c.chainId === params.chainId),
  },
}).createMachine({
  id: 'node',
  context: ({ input }) => ({
    nodeId: input.nodeId,
    networkId: input.networkId,
    network: input.network,
    chains: input.chains,
  }),
  initial: 'running',
  states: {
    running: {
      entry: [
        enqueueActions(({ enqueue, context }) => {
          enqueue.spawnChild('profiler', { id: 'profiler', systemId: SystemId.Profiler, input: { label: 'node' } })
          if (context.network !== null) {
            enqueue.spawnChild('network', { id: 'network', systemId: SystemId.Network, input: context.network })
          }
          enqueue.assign({ network: null })
        }),
        enqueueActions(({ enqueue, context }) => {
          for (const chain of context.chains) enqueue({ type: 'spawnChain', params: chain })
        }),
      ],
      on: {
        'node.createChain': {
          guard: { type: 'isNewChain', params: ({ event }) => ({ chainId: event.chain.chainId }) },
          actions: [
            { type: 'spawnChain', params: ({ event }) => event.chain },
            assign({ chains: ({ context, event }) => [...context.chains, event.chain] }),
          ],
        },
        'node.shutdown': 'stopped',
      },
    },
    stopped: { type: 'final' },
  },
})
