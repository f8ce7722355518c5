/**
 * How the simulator runs a node's Snowman engine: `actor` runs the real engine actor (actors/consensus/engine.machine.ts)
 * on XState's SimulatedClock, its inputs fed through its `engineIo` slot (an Observable, as the node's composition
 * root provides it) and its effects read from its `engine.effects` emits; the actor's own delayed transition is the
 * frontier-poll / repoll tick. `core` steps the same core (`engineHandle`) directly and leaves the tick to the
 * simulator. The actor is a thin shell over `engineHandle`, so both give the core's real behaviour; `actor` also
 * has the actor's tick timing (its timer restarts when it moves between `quiescent` and `active`).
 */
import { Subject } from 'rxjs'
import { type Actor, createActor, fromEventObservable, SimulatedClock } from 'xstate'
import {
  type EngineEffect,
  type EngineInput,
  type EngineStart,
  type EngineState,
  engineCreate,
  engineHandle,
} from '../../actors/consensus/engine.js'
import { type EngineIoInput, type EngineMachineEvent, engineMachine } from '../../actors/consensus/engine.machine.js'

export type DriverKind = 'core' | 'actor'

export interface EngineDriver {
  /** one input: its effects reach the `effects` callback given at creation, in order, before this returns */
  send(input: EngineInput): void
  /** the core's state (read-only use: summaries, processing blocks) */
  readonly core: EngineState
  /** true: the driver ticks on its own clock; false: the simulator sends the `tick` inputs */
  readonly ticksItself: boolean
  stop(): void
}

/** The simulated time the drivers share, and how an actor's timers reach the simulator's event queue. */
export class SimClock {
  readonly xstate = new SimulatedClock()

  /** `wake(at)` puts a (no-op) event into the simulator's queue, so the clock is advanced when a timer is due */
  constructor(private readonly wake: (at: number) => void) {}

  /** Advances XState's clock to `ms` (firing the actor timers due by then); never goes back. */
  advance(ms: number): void {
    if (ms > this.xstate.now()) this.xstate.set(ms)
  }

  /** the Clock the actors use: XState's SimulatedClock, plus a wake-up in the simulator's queue per timer */
  readonly clock = {
    setTimeout: (fn: (...args: unknown[]) => void, timeout: number): number => {
      const id = this.xstate.setTimeout(fn, timeout)
      this.wake(this.xstate.now() + timeout)
      return id
    },
    clearTimeout: (id: number): void => this.xstate.clearTimeout(id),
  }
}

export function coreDriver(start: EngineStart, effects: (e: EngineEffect[]) => void): EngineDriver {
  const core = engineCreate(start)
  return {
    send: (input) => effects(engineHandle(core, input)),
    core,
    ticksItself: false,
    stop: () => {},
  }
}

export interface ActorDriverOptions {
  start: EngineStart
  clock: SimClock
  frontierPollMs: number
  effects: (e: EngineEffect[]) => void
  /** an actor error or a throw in `effects` inside the actor */
  failed: (error: unknown) => void
}

/** The engine actor, started at once and made ready (`engine.ready`) at once. */
export function actorDriver(o: ActorDriverOptions): EngineDriver {
  const io = new Subject<EngineMachineEvent>()
  const machine = engineMachine.provide({
    actors: { engineIo: fromEventObservable<EngineMachineEvent, EngineIoInput>(() => io) },
  })
  const actor: Actor<typeof machine> = createActor(machine, {
    input: {
      chainId: 'sim',
      alias: 'C',
      self: o.start.self,
      params: o.start.params,
      frontierPollMs: o.frontierPollMs,
    },
    clock: o.clock.clock,
  })
  actor.on('engine.effects', (e) => {
    try {
      o.effects(e.effects)
    } catch (error) {
      o.failed(error)
    }
  })
  actor.subscribe({ error: (error) => o.failed(error) })
  actor.start()
  io.next({
    type: 'engine.ready',
    lastAccepted: o.start.lastAccepted,
    validators: o.start.validators,
    connected: o.start.connected,
    seed: o.start.seed,
  })
  if (actor.getSnapshot().context.core === null) throw new Error(`${o.start.self}: the engine actor has no core`)
  return {
    send: (input) => {
      if (input.type === 'tick') throw new Error('the engine actor ticks on its own clock')
      io.next(input)
    },
    get core() {
      return actor.getSnapshot().context.core as EngineState
    },
    ticksItself: true,
    stop: () => actor.stop(),
  }
}
