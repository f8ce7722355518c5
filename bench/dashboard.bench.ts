/**
 * What the dashboard (src/api/dashboard/) costs the node:
 * - with no page open: events/s through an XState actor system whose root's `inspect` feeds the dashboard's
 *   ActorRegistry, next to the floor measured in the same run: the same system with an `inspect` that does nothing;
 * - with a page open: the time to build one frame's actor rows (state + context cut at 4,000 characters + recent
 *   events) for a tree of 200 actors with sizeable contexts, a tenth of which change between frames, and the rows'
 *   JSON size: a page's first frame (every context) and a shared frame (changed contexts only).
 * Prints one JSON object. Knobs: BENCH_DASHBOARD_EVENTS (200000), BENCH_DASHBOARD_ROUNDS (5, medians reported).
 */
import '../src/runtime/polyfill.js'
import { assign, createActor, createMachine, type InspectionEvent, setup } from 'xstate'
import { ActorRegistry } from '../src/api/dashboard/actors.js'

const EVENTS = Number(process.env.BENCH_DASHBOARD_EVENTS ?? 200_000)
const ROUNDS = Number(process.env.BENCH_DASHBOARD_ROUNDS ?? 5)
const ACTORS = 200

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const counter = createMachine({
  context: { n: 0 },
  on: { tick: { actions: assign({ n: ({ context }) => context.n + 1 }) } },
})

/** events per second through a fresh actor with this inspect */
function eventsPerSecond(inspect: (ev: InspectionEvent) => void): number {
  const actor = createActor(counter, { inspect }).start()
  const t0 = performance.now()
  for (let i = 0; i < EVENTS; i++) actor.send({ type: 'tick' })
  const ms = performance.now() - t0
  actor.stop()
  return Math.round(EVENTS / (ms / 1000))
}

interface ChildContext {
  nodeId: string
  trackedSubnets: string[]
  history: { at: number; height: number; id: string }[]
}

const child = setup({ types: { context: {} as ChildContext, input: {} as { i: number } } }).createMachine({
  id: 'child',
  initial: 'connected',
  context: ({ input }) => ({
    nodeId: `NodeID-${'x'.repeat(33)}${input.i}`,
    trackedSubnets: Array.from({ length: 10 }, (_, j) => `subnet-${j}`),
    history: Array.from({ length: 100 }, (_, j) => ({ at: j, height: j * 10, id: '0x' + 'ab'.repeat(32) })),
  }),
  // a tick makes a new context (as an assign does)
  states: { connected: { on: { tick: { actions: assign({ history: ({ context }) => context.history.slice() }) } } } },
})

function frameCost(shared: boolean): { microsPerFrame: number; frameBytes: number } {
  const registry = new ActorRegistry()
  const parent = setup({ actors: { child } }).createMachine({
    invoke: Array.from({ length: ACTORS }, (_, i) => ({ src: 'child' as const, id: `c${i}`, input: { i } })),
  })
  const root = createActor(parent, { inspect: (ev) => registry.inspect(ev) }).start()
  const times: number[] = []
  let bytes = 0
  registry.rows(shared)
  for (let r = 0; r < 20; r++) {
    // a tenth of the actors move between frames
    for (let i = 0; i < ACTORS / 10; i++)
      root.getSnapshot().children[`c${(r * 20 + i) % ACTORS}`]?.send({ type: 'tick' })
    const t0 = performance.now()
    bytes = JSON.stringify(registry.rows(shared)).length
    times.push(performance.now() - t0)
  }
  root.stop()
  return { microsPerFrame: Math.round(median(times) * 1000), frameBytes: bytes }
}

const floor: number[] = []
const withDashboard: number[] = []
for (let r = 0; r < ROUNDS; r++) {
  floor.push(eventsPerSecond(() => undefined))
  const registry = new ActorRegistry()
  withDashboard.push(eventsPerSecond((ev) => registry.inspect(ev)))
}
const floorRate = median(floor)
const rate = median(withDashboard)
console.log(
  JSON.stringify({
    bench: 'dashboard',
    events: EVENTS,
    rounds: ROUNDS,
    noPageOpen: {
      eventsPerSecond: rate,
      floorEventsPerSecond: floorRate,
      ratioToFloor: Math.round((rate / floorRate) * 1000) / 1000,
    },
    pageOpen: { actors: ACTORS + 1, firstFrame: frameCost(false), sharedFrame: frameCost(true) },
  }),
)
