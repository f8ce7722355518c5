/**
 * The root of the actor system: spawns the node's profiler, the network actor (parent of the peer sessions) and
 * one lifecycle actor per chain, each under a systemId (`profiler`, `network`, `chain:<alias>`) so services find
 * them with `system.get(...)`. A chain actor is the parent of its own actors (benchlist, profiler, bootstrapper,
 * engine: actors/chains/chain.machine.ts). Pure: the composition root `provide`s the chain, profiler and network
 * logic with their IO slots filled.
 */
import { assign, enqueueActions, setup } from 'xstate'
import { type ChainInput, chainMachine } from './chains/chain.machine.js'
import { notProvidedPromise } from './not-provided.js'
import { type NetworkInput, networkMachine } from './peers/network.machine.js'
import { profilerMachine } from './profiler/profiler.machine.js'
import { replyError, replyOk, SERVER_ERROR_CODE } from './reply.js'
import { SystemId } from './system-ids.js'

/** What `admin.loadVMs` answers: the VMs registered by this load, and the modules that failed with why. */
export interface LoadVmsResult {
  newVMs: Record<string, string[]>
  failedVMs?: Record<string, string>
}

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
  /** `node.loadVMs` commands answered by the load running now */
  loading: string[]
  /** commands that came during it: the next load answers them */
  queuedLoads: string[]
  /** the network actor's input until it is spawned (then null: the network actor owns that state) */
  network: NetworkInput | null
  /** chains with a lifecycle actor, in creation order */
  chains: ChainInput[]
}

export type NodeEvent =
  | { type: 'node.createChain'; chain: ChainInput }
  | { type: 'node.shutdown' }
  /** `admin.loadVMs`: scan the plugin directory and register what is new (a command: replies) */
  | { type: 'node.loadVMs'; requestId: string }

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
    /** IO: loads the plugin directory's VMs into the registry */
    loadVMs: notProvidedPromise<LoadVmsResult, void>('loadVMs'),
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
    loading: [],
    queuedLoads: [],
  }),
  initial: 'running',
  states: {
    running: {
      type: 'parallel',
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
      states: {
        /** VM loading: one load at a time; commands during a load wait for the next, in order */
        vms: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                'node.loadVMs': { target: 'loading', actions: assign({ loading: ({ event }) => [event.requestId] }) },
              },
            },
            loading: {
              invoke: {
                src: 'loadVMs',
                onDone: {
                  target: 'next',
                  actions: enqueueActions(({ context, event, enqueue }) => {
                    for (const id of context.loading) enqueue.emit(replyOk(id, event.output))
                  }),
                },
                onError: {
                  target: 'next',
                  actions: enqueueActions(({ context, event, enqueue }) => {
                    const message = event.error instanceof Error ? event.error.message : String(event.error)
                    for (const id of context.loading) enqueue.emit(replyError(id, message, SERVER_ERROR_CODE))
                  }),
                },
              },
              on: {
                'node.loadVMs': {
                  actions: assign({ queuedLoads: ({ context, event }) => [...context.queuedLoads, event.requestId] }),
                },
              },
            },
            next: {
              entry: assign(({ context }) => ({ loading: context.queuedLoads, queuedLoads: [] })),
              always: [{ guard: ({ context }) => context.loading.length > 0, target: 'loading' }, { target: 'idle' }],
            },
          },
        },
      },
    },
    stopped: {
      type: 'final',
      entry: enqueueActions(({ context, enqueue }) => {
        for (const id of [...context.loading, ...context.queuedLoads]) {
          enqueue.emit(replyError(id, 'the node is shutting down'))
        }
      }),
    },
  },
})
