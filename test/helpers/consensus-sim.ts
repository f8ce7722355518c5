/**
 * A deterministic discrete-event simulator for the Snowman engine core: a simulated clock, an in-memory network
 * (configurable loss and latency, request timeouts that turn into queryFailed/getFailed), seeded PRNGs and N
 * engine cores (plain `EngineState`s stepped with `engineHandle`) each with a trivial in-memory VM that checks the
 * engine's accept/reject/verify contract. Blocks travel as `EngineBlock`s: the IO layer's parsing is not simulated.
 */
import {
  type EngineEffect,
  type EngineInput,
  type EngineState,
  engineCreate,
  engineHandle,
  engineProcessingBlock,
} from '../../actors/consensus/engine.js'
import { DEFAULT_SNOW_PARAMS, type SnowParams } from '../../actors/consensus/params.js'
import { mulberry32 } from '../../actors/consensus/prng.js'
import type { EngineBlock, ValidatorStake } from '../../actors/consensus/types.js'

export { mulberry32 }

/** A block as the engine sees it. */
export function makeBlock(id: string, parentId: string, height: number, timestampMs = 0): EngineBlock {
  return { id, parentId, height, timestampMs }
}

export const GENESIS = makeBlock('genesis', '', 0)

export interface SimConfig {
  seed: number
  /** node count (weight 100 each) */
  nodes: number
  params?: SnowParams
  /** probability that a network message (not a loop-back) is lost */
  lossRate?: number
  /** inclusive latency range for network messages */
  latencyMs?: [number, number]
  /** request timeout: a query or get without an answer by then fails */
  requestTimeoutMs?: number
  tickMs?: number
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

export interface SimNode {
  id: string
  engine: EngineState
  vm: SimVm
  /** time each height got accepted here */
  acceptedAtMs: number[]
  inbound: Map<number, { from: string; requestId: number }>
  nextInbound: number
}

interface Ev {
  at: number
  seq: number
  run: () => void
}

export const nodeIdOf = (i: number): string => `NodeID-${i}`

export class ConsensusSim {
  readonly nodes: SimNode[] = []
  readonly byId = new Map<string, SimNode>()
  readonly validators: ValidatorStake[]
  now = 0
  readonly stats = { events: 0, messages: 0, lost: 0, queryFailed: 0, getFailed: 0 }
  readonly #heap: Ev[] = []
  #seq = 0
  readonly #net: () => number
  readonly #cfg: Required<Omit<SimConfig, 'params'>> & { params: SnowParams }
  readonly #silent: Set<string>
  readonly #down: Set<string>
  readonly #bad: Set<string>
  /** `${from}|${kind}|${key}|${to}` -> true while unanswered */
  readonly #requests = new Set<string>()

  constructor(cfg: SimConfig) {
    this.#cfg = {
      params: DEFAULT_SNOW_PARAMS,
      lossRate: 0,
      latencyMs: [1, 1],
      requestTimeoutMs: 500,
      tickMs: 100,
      silent: [],
      disconnected: [],
      badBlocks: [],
      ...cfg,
    }
    this.#net = mulberry32(cfg.seed)
    this.#silent = new Set(this.#cfg.silent)
    this.#down = new Set(this.#cfg.disconnected)
    this.#bad = new Set(this.#cfg.badBlocks)
    this.validators = Array.from({ length: cfg.nodes }, (_, i) => ({ nodeId: nodeIdOf(i), weight: '100' }))
    // every validator not disconnected counts as connected (silent ones too)
    const connected = this.validators.map((v) => v.nodeId).filter((n) => !this.#down.has(n))
    for (let i = 0; i < cfg.nodes; i++) {
      const id = nodeIdOf(i)
      const engine = engineCreate({
        params: this.#cfg.params,
        self: id,
        lastAccepted: { id: GENESIS.id, height: 0 },
        validators: this.validators,
        connected,
        seed: cfg.seed * 1000 + i + 1,
      })
      const vm: SimVm = {
        blocks: new Map([[GENESIS.id, GENESIS]]),
        accepted: [GENESIS.id],
        rejected: new Set(),
        preference: GENESIS.id,
        built: 0,
      }
      const node: SimNode = { id, engine, vm, acceptedAtMs: [0], inbound: new Map(), nextInbound: 1 }
      this.nodes.push(node)
      this.byId.set(id, node)
      if (this.#active(id)) this.#scheduleTick(node, Math.floor(this.#net() * this.#cfg.tickMs) + 1)
    }
  }

  #active(id: string): boolean {
    return !this.#silent.has(id) && !this.#down.has(id)
  }

  // ---- event queue (binary heap on (at, seq)) ----

  #schedule(at: number, run: () => void): void {
    const h = this.#heap
    h.push({ at, seq: this.#seq++, run })
    let i = h.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!less(h[i] as Ev, h[p] as Ev)) break
      ;[h[i], h[p]] = [h[p] as Ev, h[i] as Ev]
      i = p
    }
  }

  #pop(): Ev | undefined {
    const h = this.#heap
    const top = h[0]
    const last = h.pop()
    if (h.length > 0 && last !== undefined) {
      h[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < h.length && less(h[l] as Ev, h[m] as Ev)) m = l
        if (r < h.length && less(h[r] as Ev, h[m] as Ev)) m = r
        if (m === i) break
        ;[h[i], h[m]] = [h[m] as Ev, h[i] as Ev]
        i = m
      }
    }
    return top
  }

  /** Runs events until `done()` holds (checked after each event) or simulated time passes `maxMs`. */
  runUntil(done: () => boolean, maxMs: number): boolean {
    while (!done()) {
      const top = this.#heap[0]
      if (top === undefined || top.at > maxMs) return false
      const ev = this.#pop() as Ev
      this.now = ev.at
      this.stats.events++
      ev.run()
    }
    return true
  }

  /** The builder of `nodeId` signals pending txs at `atMs`. */
  pendingTxs(nodeId: string, atMs: number): void {
    this.#schedule(atMs, () => this.#input(this.#node(nodeId), { type: 'pendingTxs' }))
  }

  #node(id: string): SimNode {
    const n = this.byId.get(id)
    if (n === undefined) throw new Error(`unknown node ${id}`)
    return n
  }

  #scheduleTick(node: SimNode, at: number): void {
    this.#schedule(at, () => {
      this.#input(node, { type: 'tick' })
      this.#scheduleTick(node, this.now + this.#cfg.tickMs)
    })
  }

  #input(node: SimNode, input: EngineInput): void {
    for (const e of engineHandle(node.engine, input)) this.#effect(node, e)
  }

  /** Sends over the network: loop-backs arrive at once and are never lost. */
  #send(from: string, to: string, deliver: () => void): void {
    if (from === to) {
      this.#schedule(this.now, deliver)
      return
    }
    this.stats.messages++
    if (!this.#active(to)) return
    if (this.#net() < this.#cfg.lossRate) {
      this.stats.lost++
      return
    }
    const [lo, hi] = this.#cfg.latencyMs
    this.#schedule(this.now + lo + Math.floor(this.#net() * (hi - lo + 1)), deliver)
  }

  /** Registers a request; its failure fires at once for a disconnected target, else at the timeout. */
  #request(key: string, to: string, onFail: () => void): void {
    this.#requests.add(key)
    const fail = () => {
      if (this.#requests.delete(key)) onFail()
    }
    if (this.#down.has(to)) this.#schedule(this.now, fail)
    else this.#schedule(this.now + this.#cfg.requestTimeoutMs, fail)
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
          this.#send(node.id, to, () => {
            const target = this.#node(to)
            const inboundId = target.nextInbound++
            target.inbound.set(inboundId, { from: node.id, requestId: e.requestId })
            this.#input(target, { ...q, inboundId })
          })
        }
        return
      case 'chits': {
        const req = node.inbound.get(e.inboundId)
        node.inbound.delete(e.inboundId)
        if (req === undefined) throw new Error(`chits for unknown inbound ${e.inboundId}`)
        this.#send(node.id, req.from, () => {
          const querier = this.#node(req.from)
          if (req.requestId !== 0 && !this.#requests.delete(`${req.from}|q|${req.requestId}|${node.id}`)) return
          this.#input(querier, { type: 'chits', from: node.id, requestId: req.requestId, chits: e.chits })
        })
        return
      }
      case 'get': {
        const key = `${node.id}|g|${e.blockId}|${e.to}`
        this.#request(key, e.to, () => {
          this.stats.getFailed++
          this.#input(node, { type: 'getFailed', from: e.to, blockId: e.blockId })
        })
        this.#send(node.id, e.to, () => {
          const peer = this.#node(e.to)
          const blk = engineProcessingBlock(peer.engine, e.blockId) ?? peer.vm.blocks.get(e.blockId)
          if (blk === undefined) return // not answered: the asker times out
          this.#send(peer.id, node.id, () => {
            if (!this.#requests.delete(key)) return
            this.#input(node, { type: 'put', from: peer.id, block: blk, blockId: e.blockId })
          })
        })
        return
      }
      case 'verify': {
        const b = e.block
        if (!vm.blocks.has(b.parentId)) throw new Error(`${node.id}: verify ${b.id} before its parent ${b.parentId}`)
        const ok = !this.#bad.has(b.id)
        if (ok) vm.blocks.set(b.id, b)
        this.#schedule(this.now + 1, () => this.#input(node, { type: 'verified', blockId: b.id, ok }))
        return
      }
      case 'build': {
        const parent = vm.blocks.get(vm.preference)
        if (parent === undefined) throw new Error(`${node.id}: preference ${vm.preference} unknown to the VM`)
        const b = makeBlock(`${node.id}/b${++vm.built}@${parent.height + 1}`, parent.id, parent.height + 1, this.now)
        vm.blocks.set(b.id, b)
        this.#schedule(this.now, () => this.#input(node, { type: 'built', block: b }))
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

const less = (a: Ev, b: Ev): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq)
