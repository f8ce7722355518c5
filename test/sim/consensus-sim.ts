/**
 * A deterministic discrete-event simulator of N Snowman engines: a simulated clock, an in-memory network
 * (configurable loss and latency, request timeouts that turn into queryFailed/getFailed), seeded PRNGs, and per
 * node a trivial in-memory VM that checks the engine's accept/reject/verify contract. Each engine is the engine
 * actor on XState's SimulatedClock or its core stepped directly (engine-driver.ts). Blocks reach the engines as
 * `EngineBlock`s (the IO layer's parsing is not simulated), but every message that crosses the network is also
 * encoded with Firn's consensus codecs and its frame length counted per sender and kind (wire.ts).
 */
import type { EngineEffect, EngineInput, EngineState } from '../../actors/consensus/engine.js'
import { engineProcessingBlock } from '../../actors/consensus/engine.js'
import { DEFAULT_SNOW_PARAMS, type SnowParams } from '../../actors/consensus/params.js'
import { mulberry32 } from '../../actors/consensus/prng.js'
import type { EngineBlock, ValidatorStake } from '../../actors/consensus/types.js'
import { actorDriver, coreDriver, type DriverKind, type EngineDriver, SimClock } from './engine-driver.js'
import { EventQueue } from './event-queue.js'
import { newTraffic, type Traffic, WireEncoder, type WireKind } from './wire.js'

export { mulberry32 }

/** A block as the engine sees it. */
export function makeBlock(id: string, parentId: string, height: number, timestampMs = 0): EngineBlock {
  return { id, parentId, height, timestampMs }
}

export const GENESIS = makeBlock('genesis', '', 0)

/** The container size when none is given: test/sim/container.ts measures it (a C-chain block with one transfer). */
export const DEFAULT_CONTAINER_BYTES = 2589

export interface SimConfig {
  seed: number
  /** node count (weight 100 each) */
  nodes: number
  params?: SnowParams
  /** 'core' (default): engineHandle stepped directly; 'actor': the engine actor on XState's SimulatedClock */
  driver?: DriverKind
  /** probability that a network message (not a loop-back) is lost */
  lossRate?: number
  /** inclusive latency range for network messages */
  latencyMs?: [number, number]
  /**
   * true (default): messages from one node to another arrive in the order they were sent, as on the node's one
   * stream per peer and protocol (a message drawing a shorter latency waits for the one before it)
   */
  fifo?: boolean
  /** request timeout: a query or get without an answer by then fails */
  requestTimeoutMs?: number
  /** the frontier-poll / repoll tick */
  tickMs?: number
  /** bytes of every block's container in PushQuery and Put */
  containerBytes?: number
  /** validators that never answer nor act (still counted as connected) */
  silent?: string[]
  /** validators every other node sees as disconnected (queries to them fail at once) */
  disconnected?: string[]
  /** block IDs whose verification fails */
  badBlocks?: string[]
}

interface SimVm {
  blocks: Map<string, EngineBlock>
  /** accepted block IDs by height (index 0 = genesis) */
  accepted: string[]
  rejected: Set<string>
  preference: string
  built: number
}

interface Inbound {
  from: string
  requestId: number
  /** the exchange's request ID on the wire */
  wireId: number
}

export class SimNode {
  driver: EngineDriver | undefined
  readonly vm: SimVm = {
    blocks: new Map([[GENESIS.id, GENESIS]]),
    accepted: [GENESIS.id],
    rejected: new Set(),
    preference: GENESIS.id,
    built: 0,
  }
  /** time each height got accepted here */
  readonly acceptedAtMs: number[] = [0]
  readonly inbound = new Map<number, Inbound>()
  nextInbound = 1
  /** the node's exchange request counter (the envelope's request ID) */
  nextWireId = 1
  /** what this node sent over the network (loop-backs excluded) */
  readonly sent: Traffic = newTraffic()
  /** of its pull queries, the frontier polls (requestId 0: no poll, sent on an idle tick) */
  frontierPulls = 0
  /** by peer index: when this node's last message to it arrives (FIFO links) */
  readonly linkBusyUntil: number[]

  constructor(
    readonly id: string,
    readonly index: number,
    nodes: number,
  ) {
    this.linkBusyUntil = new Array<number>(nodes).fill(0)
  }

  get engine(): EngineState {
    if (this.driver === undefined) throw new Error(`${this.id}: the engine has not started`)
    return this.driver.core
  }
}

export const nodeIdOf = (i: number): string => `NodeID-${i}`

export class ConsensusSim {
  readonly nodes: SimNode[] = []
  readonly byId = new Map<string, SimNode>()
  readonly validators: ValidatorStake[]
  now = 0
  readonly stats = { events: 0, messages: 0, lost: 0, queryFailed: 0, getFailed: 0 }
  readonly #queue = new EventQueue()
  readonly #clock: SimClock
  readonly #net: () => number
  readonly #cfg: Required<Omit<SimConfig, 'params'>> & { params: SnowParams }
  readonly #wire: WireEncoder
  readonly #silent: Set<string>
  readonly #down: Set<string>
  readonly #bad: Set<string>
  /** `${from}|${kind}|${key}|${to}` -> true while unanswered */
  readonly #requests = new Set<string>()
  #failure: unknown

  constructor(cfg: SimConfig) {
    this.#cfg = {
      params: DEFAULT_SNOW_PARAMS,
      driver: 'core',
      lossRate: 0,
      latencyMs: [1, 1],
      fifo: true,
      requestTimeoutMs: 500,
      tickMs: 100,
      containerBytes: DEFAULT_CONTAINER_BYTES,
      silent: [],
      disconnected: [],
      badBlocks: [],
      ...cfg,
    }
    this.#net = mulberry32(cfg.seed)
    this.#clock = new SimClock((at) => this.#queue.schedule(at, () => {}))
    this.#wire = new WireEncoder({
      container: new Uint8Array(this.#cfg.containerBytes),
      timeoutMs: this.#cfg.requestTimeoutMs,
    })
    this.#silent = new Set(this.#cfg.silent)
    this.#down = new Set(this.#cfg.disconnected)
    this.#bad = new Set(this.#cfg.badBlocks)
    this.validators = Array.from({ length: cfg.nodes }, (_, i) => ({ nodeId: nodeIdOf(i), weight: '100' }))
    // every validator not disconnected counts as connected (silent ones too)
    const connected = this.validators.map((v) => v.nodeId).filter((n) => !this.#down.has(n))
    for (let i = 0; i < cfg.nodes; i++) {
      const node = new SimNode(nodeIdOf(i), i, cfg.nodes)
      const start = {
        params: this.#cfg.params,
        self: node.id,
        lastAccepted: { id: GENESIS.id, height: 0 },
        validators: this.validators,
        connected,
        seed: cfg.seed * 1000 + i + 1,
      }
      this.nodes.push(node)
      this.byId.set(node.id, node)
      const effects = (es: EngineEffect[]): void => {
        for (const e of es) this.#effect(node, e)
      }
      if (this.#cfg.driver === 'core' || !this.#active(node.id)) {
        // a silent or disconnected node's core is never stepped
        node.driver = coreDriver(start, effects)
      }
      if (!this.#active(node.id)) continue
      // active nodes start at random phases of the tick
      const phase = Math.floor(this.#net() * this.#cfg.tickMs) + 1
      if (this.#cfg.driver === 'core') {
        this.#scheduleTick(node, phase)
        continue
      }
      const failed = (error: unknown): void => {
        this.#failure ??= error
      }
      this.#queue.schedule(phase, () => {
        node.driver = actorDriver({ start, clock: this.#clock, frontierPollMs: this.#cfg.tickMs, effects, failed })
      })
    }
  }

  #active(id: string): boolean {
    return !this.#silent.has(id) && !this.#down.has(id)
  }

  /** Runs events until `done()` holds (checked after each event) or simulated time passes `maxMs`. */
  runUntil(done: () => boolean, maxMs: number): boolean {
    while (!done()) {
      const at = this.#queue.peekTime()
      if (at === undefined || at > maxMs) return false
      const ev = this.#queue.pop() as { at: number; run: () => void }
      this.now = ev.at
      this.#clock.advance(ev.at)
      this.stats.events++
      ev.run()
      if (this.#failure !== undefined) throw this.#failure
    }
    return true
  }

  /** The builder of `nodeId` signals pending txs at `atMs`. */
  pendingTxs(nodeId: string, atMs: number): void {
    this.#queue.schedule(atMs, () => this.#input(this.#node(nodeId), { type: 'pendingTxs' }))
  }

  /** Stops the engine actors (a run's end). */
  stop(): void {
    for (const n of this.nodes) n.driver?.stop()
  }

  #node(id: string): SimNode {
    const n = this.byId.get(id)
    if (n === undefined) throw new Error(`unknown node ${id}`)
    return n
  }

  #scheduleTick(node: SimNode, at: number): void {
    this.#queue.schedule(at, () => {
      this.#input(node, { type: 'tick' })
      this.#scheduleTick(node, this.now + this.#cfg.tickMs)
    })
  }

  #input(node: SimNode, input: EngineInput): void {
    if (node.driver === undefined) throw new Error(`${node.id}: input ${input.type} before the engine started`)
    node.driver.send(input)
  }

  /** Sends over the network: loop-backs arrive at once, are never lost and are not counted. */
  #send(from: SimNode, to: string, kind: WireKind, bytes: () => number, deliver: () => void): void {
    if (from.id === to) {
      this.#queue.schedule(this.now, deliver)
      return
    }
    this.stats.messages++
    from.sent.messages[kind]++
    from.sent.bytes[kind] += bytes()
    if (!this.#active(to)) return
    if (this.#net() < this.#cfg.lossRate) {
      this.stats.lost++
      return
    }
    const [lo, hi] = this.#cfg.latencyMs
    let at = this.now + lo + Math.floor(this.#net() * (hi - lo + 1))
    if (this.#cfg.fifo) {
      const peer = this.#node(to).index
      at = Math.max(at, from.linkBusyUntil[peer] as number)
      from.linkBusyUntil[peer] = at
    }
    this.#queue.schedule(at, deliver)
  }

  /** Registers a request; its failure fires at once for a disconnected target, else at the timeout. */
  #request(key: string, to: string, onFail: () => void): void {
    this.#requests.add(key)
    const fail = () => {
      if (this.#requests.delete(key)) onFail()
    }
    if (this.#down.has(to)) this.#queue.schedule(this.now, fail)
    else this.#queue.schedule(this.now + this.#cfg.requestTimeoutMs, fail)
  }

  #effect(node: SimNode, e: EngineEffect): void {
    const { vm } = node
    switch (e.type) {
      case 'pushQuery':
      case 'pullQuery':
        for (const to of e.to) {
          if (e.requestId !== 0) {
            this.#request(`${node.id}|q|${e.requestId}|${to}`, to, () => {
              this.stats.queryFailed++
              this.#input(node, { type: 'queryFailed', from: to, requestId: e.requestId })
            })
          }
          const q: EngineInput =
            e.type === 'pushQuery'
              ? { type: 'query', from: node.id, inboundId: 0, block: e.block, requestedHeight: e.requestedHeight }
              : { type: 'query', from: node.id, inboundId: 0, blockId: e.blockId, requestedHeight: e.requestedHeight }
          const wireId = node.nextWireId++
          if (e.requestId === 0 && to !== node.id) node.frontierPulls++
          const bytes = () =>
            e.type === 'pushQuery'
              ? this.#wire.pushQuery(wireId, this.now, e.requestedHeight)
              : this.#wire.pullQuery(wireId, this.now, e.blockId, e.requestedHeight)
          this.#send(node, to, e.type, bytes, () => {
            const target = this.#node(to)
            const inboundId = target.nextInbound++
            target.inbound.set(inboundId, { from: node.id, requestId: e.requestId, wireId })
            this.#input(target, { ...q, inboundId })
          })
        }
        return
      case 'chits': {
        const req = node.inbound.get(e.inboundId)
        node.inbound.delete(e.inboundId)
        if (req === undefined) throw new Error(`chits for unknown inbound ${e.inboundId}`)
        this.#send(
          node,
          req.from,
          'chits',
          () => this.#wire.chits(req.wireId, e.chits),
          () => {
            const querier = this.#node(req.from)
            if (req.requestId !== 0 && !this.#requests.delete(`${req.from}|q|${req.requestId}|${node.id}`)) return
            this.#input(querier, { type: 'chits', from: node.id, requestId: req.requestId, chits: e.chits })
          },
        )
        return
      }
      case 'get': {
        const key = `${node.id}|g|${e.blockId}|${e.to}`
        this.#request(key, e.to, () => {
          this.stats.getFailed++
          this.#input(node, { type: 'getFailed', from: e.to, blockId: e.blockId })
        })
        const wireId = node.nextWireId++
        this.#send(
          node,
          e.to,
          'get',
          () => this.#wire.get(wireId, this.now, e.blockId),
          () => {
            const peer = this.#node(e.to)
            const blk = engineProcessingBlock(peer.engine, e.blockId) ?? peer.vm.blocks.get(e.blockId)
            if (blk === undefined) return // not answered: the asker times out
            this.#send(
              peer,
              node.id,
              'put',
              () => this.#wire.put(wireId),
              () => {
                if (!this.#requests.delete(key)) return
                this.#input(node, { type: 'put', from: peer.id, block: blk, blockId: e.blockId })
              },
            )
          },
        )
        return
      }
      case 'verify': {
        const b = e.block
        if (!vm.blocks.has(b.parentId)) throw new Error(`${node.id}: verify ${b.id} before its parent ${b.parentId}`)
        const ok = !this.#bad.has(b.id)
        if (ok) vm.blocks.set(b.id, b)
        this.#queue.schedule(this.now + 1, () => this.#input(node, { type: 'verified', blockId: b.id, ok }))
        return
      }
      case 'build': {
        const parent = vm.blocks.get(vm.preference)
        if (parent === undefined) throw new Error(`${node.id}: preference ${vm.preference} unknown to the VM`)
        const b = makeBlock(`${node.id}/b${++vm.built}@${parent.height + 1}`, parent.id, parent.height + 1, this.now)
        vm.blocks.set(b.id, b)
        this.#queue.schedule(this.now, () => this.#input(node, { type: 'built', block: b }))
        return
      }
      case 'accept': {
        const b = vm.blocks.get(e.blockId)
        if (b === undefined) throw new Error(`${node.id}: accept of unverified ${e.blockId}`)
        if (b.parentId !== vm.accepted.at(-1)) throw new Error(`${node.id}: accept ${b.id} out of order`)
        vm.accepted.push(b.id)
        node.acceptedAtMs.push(this.now)
        return
      }
      case 'reject':
        if (vm.accepted.includes(e.blockId)) throw new Error(`${node.id}: reject of accepted ${e.blockId}`)
        vm.rejected.add(e.blockId)
        // our own block lost: its txs go back to the pool and the builder signals again
        if (e.blockId.startsWith(`${node.id}/`)) this.pendingTxs(node.id, this.now + 100)
        return
      case 'setPreference':
        vm.preference = e.blockId
        return
    }
  }

  /** Every node's accepted chain, heights 0.., joined (for determinism checks). */
  fingerprint(): string {
    return this.nodes.map((n) => `${n.id}:${n.vm.accepted.join(',')}@${n.acceptedAtMs.join(',')}`).join('\n')
  }
}
