/**
 * One chain's benchlist as an actor (`benchlist:<alias>`, a child of the chain actor for the chain's whole life):
 * wraps `benchlistReducer`. It decides benching and tells the peer's session itself: for every node benched or
 * unbenched it sends `session.benched` to `peer:<NodeID>` when that session exists, and emits `bench.changed`
 * (src/ logs it; the chain's engine IO hears it as a connectivity change). Time arrives in the events; src/ sends
 * `bench.tick` when the earliest bench runs out (`nextBenchExpiry`), and `isBenched` with a `now` already ignores
 * an expired bench.
 */
import { enqueueActions, setup } from 'xstate'
import { SystemId } from '../system-ids.js'
import {
  type BenchChange,
  type BenchlistConfig,
  type BenchlistState,
  benchlistCreate,
  benchlistReducer,
  isBenched as isBenchedIn,
  type ValidatorWeight,
} from './benchlist.js'

export interface BenchlistInput {
  chainId: string
  config?: Partial<BenchlistConfig>
  validators?: ValidatorWeight[]
}

export interface BenchlistContext {
  chainId: string
  bench: BenchlistState
}

export type BenchlistMachineEvent =
  | { type: 'bench.success'; nodeId: string; weight: number; now: number }
  | { type: 'bench.failure'; nodeId: string; weight: number; now: number }
  | { type: 'bench.tick'; now: number }
  | { type: 'bench.validatorsChanged'; validators: ValidatorWeight[]; now: number }

export type BenchlistEmitted = { type: 'bench.changed'; chainId: string } & BenchChange

/** What the benchlist tells a peer's session (actors/peers/peer-session.types.ts). */
export interface SessionBenched {
  type: 'session.benched'
  chainId: string
  benched: boolean
}

const toReducerEvent = (e: BenchlistMachineEvent) => {
  switch (e.type) {
    case 'bench.success':
      return { type: 'success' as const, nodeId: e.nodeId, weight: e.weight, now: e.now }
    case 'bench.failure':
      return { type: 'failure' as const, nodeId: e.nodeId, weight: e.weight, now: e.now }
    case 'bench.tick':
      return { type: 'tick' as const, now: e.now }
    case 'bench.validatorsChanged':
      return { type: 'validatorsChanged' as const, validators: e.validators, now: e.now }
  }
}

export const benchlistMachine = setup({
  types: {
    input: {} as BenchlistInput,
    context: {} as BenchlistContext,
    events: {} as BenchlistMachineEvent,
    emitted: {} as BenchlistEmitted,
  },
  actions: {
    /** run the reducer; store the new state, tell each change to the peer's session (if any) and announce it */
    reduce: enqueueActions(({ context, event, enqueue, system }) => {
      const { state, changes } = benchlistReducer(context.bench, toReducerEvent(event))
      if (state !== context.bench) enqueue.assign({ bench: state })
      for (const c of changes) {
        const session = system.get(SystemId.peer(c.nodeId))
        if (session !== undefined) {
          const told: SessionBenched = { type: 'session.benched', chainId: context.chainId, benched: c.benched }
          enqueue.sendTo(session, told)
        }
        enqueue.emit({ type: 'bench.changed', chainId: context.chainId, nodeId: c.nodeId, benched: c.benched })
      }
    }),
  },
}).createMachine({
  id: 'benchlist',
  context: ({ input }) => ({ chainId: input.chainId, bench: benchlistCreate(input.config, input.validators) }),
  initial: 'tracking',
  states: {
    tracking: {
      on: {
        'bench.success': { actions: 'reduce' },
        'bench.failure': { actions: 'reduce' },
        'bench.tick': { actions: 'reduce' },
        'bench.validatorsChanged': { actions: 'reduce' },
      },
    },
  },
})

/** Query on a snapshot: are requests to `nodeId` on this chain failed at once? */
export const isBenched = (snapshot: { context: BenchlistContext }, nodeId: string, now?: number): boolean =>
  isBenchedIn(snapshot.context.bench, nodeId, now)
