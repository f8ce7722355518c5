/**
 * One simulated run and its figures: N validators of equal stake, a block issued every `intervalMs` by the next
 * proposer in turn (its builder signals pending txs), run until every node has accepted `blocks` heights.
 * Finality of a height = from its block being built to its acceptance by the proposer, by 2/3 of the nodes
 * (the ceil(2N/3)-th acceptance) and by every node; p50/p99 over heights (nearest rank). Traffic = every message a
 * node sent over the simulated network in the whole run (frontier polls while idle included), per accepted block.
 */
import { DEFAULT_SNOW_PARAMS, type SnowParams } from '../../actors/consensus/params.js'
import { ConsensusSim, DEFAULT_CONTAINER_BYTES, nodeIdOf } from './consensus-sim.js'
import type { DriverKind } from './engine-driver.js'
import { totalOf, WIRE_KINDS, type WireKind } from './wire.js'

export interface ScenarioConfig {
  nodes: number
  blocks: number
  seed: number
  /** one-way latency, uniform over whole ms in [lo, hi] */
  latencyMs: [number, number]
  lossRate: number
  driver: DriverKind
  containerBytes: number
  /** time between two blocks' issuance */
  intervalMs: number
  /** a query or get unanswered this long fails (the adaptive timeout's floor, 2 s, by default) */
  requestTimeoutMs: number
  params: SnowParams
  /** give up past this much simulated time */
  maxSimMs: number
}

export const DEFAULT_SCENARIO: Readonly<Omit<ScenarioConfig, 'nodes'>> = Object.freeze({
  blocks: 20,
  seed: 1,
  latencyMs: [5, 50] as [number, number],
  lossRate: 0,
  driver: 'actor' as DriverKind,
  containerBytes: DEFAULT_CONTAINER_BYTES,
  intervalMs: 1_000,
  requestTimeoutMs: 2_000,
  params: DEFAULT_SNOW_PARAMS,
  maxSimMs: 3_600_000,
})

export interface Percentiles {
  p50: number
  p99: number
}

export interface MeanMax {
  mean: number
  max: number
}

export interface ScenarioResult {
  nodes: number
  /** heights measured (accepted by every node) */
  blocks: number
  /** blocks some node rejected (a conflicting proposal that lost; its proposer builds again) */
  rejectedBlocks: number
  simulatedMs: number
  finalityMs: { proposer: Percentiles; twoThirds: Percentiles; all: Percentiles }
  /** per accepted block and node: messages and bytes (frames) sent */
  perBlockPerNode: {
    messages: MeanMax
    bytes: MeanMax
    /** mean over nodes, by message kind */
    messagesByKind: Record<WireKind, number>
    bytesByKind: Record<WireKind, number>
  }
  /** per accepted block and node (mean over nodes): polls started, and the frontier polls of idle ticks */
  polls: { perBlockPerNode: number; peersPerPoll: number; frontierPullsPerBlockPerNode: number }
  /** queries and gets that timed out, messages lost */
  failures: { queryFailed: number; getFailed: number; lost: number }
  events: number
}

/** Nearest-rank percentile of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[rank - 1] as number
}

const round1 = (x: number): number => Math.round(x * 10) / 10

const percentiles = (values: readonly number[]): Percentiles => ({
  p50: percentile(values, 50),
  p99: percentile(values, 99),
})

const meanMax = (values: readonly number[]): MeanMax => ({
  mean: round1(values.reduce((a, b) => a + b, 0) / values.length),
  max: round1(Math.max(...values)),
})

export function runScenario(cfg: ScenarioConfig): { sim: ConsensusSim; result: ScenarioResult } {
  const sim = new ConsensusSim({
    seed: cfg.seed,
    nodes: cfg.nodes,
    params: cfg.params,
    driver: cfg.driver,
    lossRate: cfg.lossRate,
    latencyMs: cfg.latencyMs,
    requestTimeoutMs: cfg.requestTimeoutMs,
    containerBytes: cfg.containerBytes,
  })
  // the first block once every engine runs (they start within the first tick)
  const firstMs = 200
  for (let b = 0; b < cfg.blocks; b++) sim.pendingTxs(nodeIdOf(b % cfg.nodes), firstMs + b * cfg.intervalMs)
  // accepted chains only grow: the nodes already through stay through
  let through = 0
  const done = (): boolean => {
    while (through < sim.nodes.length && (sim.nodes[through]?.vm.accepted.length ?? 0) > cfg.blocks) through++
    return through === sim.nodes.length
  }
  try {
    if (!sim.runUntil(done, cfg.maxSimMs)) {
      const heights = sim.nodes.map((n) => n.vm.accepted.length - 1)
      throw new Error(`${cfg.nodes} nodes stalled at ${sim.now} ms: accepted heights ${Math.min(...heights)}..`)
    }
  } finally {
    sim.stop()
  }
  return { sim, result: measure(sim, cfg) }
}

function measure(sim: ConsensusSim, cfg: ScenarioConfig): ScenarioResult {
  const first = sim.nodes[0]
  if (first === undefined) throw new Error('no nodes')
  const chain = first.vm.accepted
  const twoThirds = Math.ceil((2 * cfg.nodes) / 3)
  const proposer: number[] = []
  const byTwoThirds: number[] = []
  const byAll: number[] = []
  for (let h = 1; h <= cfg.blocks; h++) {
    const id = chain[h] as string
    for (const n of sim.nodes) {
      if (n.vm.accepted[h] !== id) throw new Error(`${n.id} accepted another block at height ${h}`)
    }
    const block = first.vm.blocks.get(id)
    const builder = sim.byId.get(id.slice(0, id.indexOf('/')))
    if (block === undefined || builder === undefined) throw new Error(`height ${h}: block ${id} unknown`)
    const times = sim.nodes.map((n) => n.acceptedAtMs[h] as number).sort((a, b) => a - b)
    proposer.push((builder.acceptedAtMs[h] as number) - block.timestampMs)
    byTwoThirds.push((times[twoThirds - 1] as number) - block.timestampMs)
    byAll.push((times.at(-1) as number) - block.timestampMs)
  }
  const perBlock = (x: number): number => x / cfg.blocks
  const kindMean = (pick: (k: WireKind, n: (typeof sim.nodes)[number]) => number): Record<WireKind, number> => {
    const out = {} as Record<WireKind, number>
    for (const k of WIRE_KINDS) out[k] = round1(sim.nodes.reduce((s, n) => s + perBlock(pick(k, n)), 0) / cfg.nodes)
    return out
  }
  const polls = sim.nodes.reduce((s, n) => s + n.engine.requestId, 0)
  const frontier = sim.nodes.reduce((s, n) => s + n.frontierPulls, 0)
  const queries = sim.nodes.reduce((s, n) => s + n.sent.messages.pushQuery + n.sent.messages.pullQuery, 0)
  const rejected = new Set(sim.nodes.flatMap((n) => [...n.vm.rejected]))
  return {
    nodes: cfg.nodes,
    blocks: cfg.blocks,
    rejectedBlocks: rejected.size,
    simulatedMs: sim.now,
    finalityMs: { proposer: percentiles(proposer), twoThirds: percentiles(byTwoThirds), all: percentiles(byAll) },
    perBlockPerNode: {
      messages: meanMax(sim.nodes.map((n) => perBlock(totalOf(n.sent.messages)))),
      bytes: meanMax(sim.nodes.map((n) => perBlock(totalOf(n.sent.bytes)))),
      messagesByKind: kindMean((k, n) => n.sent.messages[k]),
      bytesByKind: kindMean((k, n) => n.sent.bytes[k]),
    },
    polls: {
      perBlockPerNode: round1(polls / cfg.nodes / cfg.blocks),
      // the distinct peers a poll's query goes to over the network (self is sampled too, and looped back)
      peersPerPoll: round1((queries - frontier) / polls),
      frontierPullsPerBlockPerNode: round1(frontier / cfg.nodes / cfg.blocks),
    },
    failures: { queryFailed: sim.stats.queryFailed, getFailed: sim.stats.getFailed, lost: sim.stats.lost },
    events: sim.stats.events,
  }
}
