/**
 * A fake-but-honest network for bootstrapper tests: blocks whose id is the hash of (parent, height, salt), peers
 * that each know a chain and answer GetAcceptedFrontier / GetAccepted / GetAncestors like real nodes (serving with
 * `collectAncestors` and `answerGetAccepted`), with injectable misbehaviour and delays on a SimulatedClock, and a
 * local node that accepts blocks only on its last accepted block.
 */
import { createHash } from 'node:crypto'
import type { SimulatedClock } from 'xstate'
import { answerGetAccepted, collectAncestors } from '../../../../actors/consensus/bootstrap.js'
import type { BootstrapIo } from '../../../../actors/consensus/bootstrapper.io.js'
import type { ParsedBlock, Weighted } from '../../../../actors/consensus/types.js'

const enc = new TextEncoder()
const dec = new TextDecoder()

const blockId = (parentId: string, height: number, salt: string): string =>
  '0x' + createHash('sha256').update(`${parentId}|${height}|${salt}`).digest('hex')

export function makeBlock(parent: ParsedBlock | undefined, salt = ''): ParsedBlock {
  const parentId = parent?.id ?? '0x' + '00'.repeat(32)
  const height = parent === undefined ? 0 : parent.height + 1
  const id = blockId(parentId, height, salt)
  const bytes = enc.encode(JSON.stringify({ parentId, height, salt }))
  return { id, parentId, height, timestampMs: height * 1000, bytes }
}

/** Parses the fake encoding; the id is recomputed, so a block cannot lie about itself. */
export function parseBlock(bytes: Uint8Array): ParsedBlock | undefined {
  try {
    const o = JSON.parse(dec.decode(bytes)) as { parentId: string; height: number; salt: string }
    if (typeof o.parentId !== 'string' || typeof o.height !== 'number' || typeof o.salt !== 'string') return undefined
    return {
      id: blockId(o.parentId, o.height, o.salt),
      parentId: o.parentId,
      height: o.height,
      timestampMs: o.height * 1000,
      bytes,
    }
  } catch {
    return undefined
  }
}

/** `n` blocks on top of `from` (a chain array indexed by height). */
export function extend(chain: ParsedBlock[], n: number, salt = ''): ParsedBlock[] {
  const out = [...chain]
  for (let i = 0; i < n; i++) out.push(makeBlock(out[out.length - 1], salt))
  return out
}

export const genesisChain = (): ParsedBlock[] => [makeBlock(undefined)]

export type AncestorsFault = 'garbage' | 'empty' | 'wrong' | 'timeout' | 'reject'

export interface FakePeer {
  nodeId: string
  weight: bigint
  chain: ParsedBlock[]
  /** how GetAncestors misbehaves (every time, or for the first `faultCount` calls) */
  ancestorsFault?: AncestorsFault
  faultCount?: number
  /** simulated latency of a GetAncestors answer, ms */
  latencyMs?: number
  /** containers per Ancestors served */
  maxContainers?: number
  /** GetAcceptedFrontier fails for the first this many calls (a connection still opening) */
  frontierFails?: number
}

export interface Call {
  op: 'frontier' | 'accepted' | 'ancestors'
  peer: string
  id?: string
}

const TIMEOUT_MS = 2000

export class FakeNetwork {
  readonly calls: Call[] = []
  readonly executedHeights: number[] = []
  local: ParsedBlock[]
  connected: bigint | undefined
  /** called after each local execution (to move the peers' tip, say) */
  onExecuted: (blk: ParsedBlock) => void = () => {}
  private randState = 42

  constructor(
    readonly clock: SimulatedClock,
    readonly peers: FakePeer[],
    readonly self: Weighted | undefined = { nodeId: 'NodeID-self', weight: 1n },
    local: ParsedBlock[] = genesisChain(),
  ) {
    this.local = [...local]
  }

  peer(nodeId: string): FakePeer {
    const p = this.peers.find((x) => x.nodeId === nodeId)
    if (p === undefined) throw new Error(`unknown peer ${nodeId}`)
    return p
  }

  /** a deterministic LCG in [0, 1) */
  random(): number {
    this.randState = (this.randState * 1103515245 + 12345) % 2147483648
    return this.randState / 2147483648
  }

  private delay<T>(ms: number, f: () => T): Promise<T> {
    if (ms <= 0) return Promise.resolve().then(f)
    return new Promise((resolve, reject) => {
      this.clock.setTimeout(() => {
        try {
          resolve(f())
        } catch (e) {
          reject(e)
        }
      }, ms)
    })
  }

  io(): BootstrapIo {
    const selfId = this.self?.nodeId ?? 'NodeID-self'
    const lookupIn = (chain: ParsedBlock[]) => {
      const byId = new Map(chain.map((b) => [b.id, b]))
      return async (id: string) => byId.get(id)
    }
    return {
      self: selfId,
      beacons: () => [
        ...(this.self ? [this.self] : []),
        ...this.peers.map((p) => ({ nodeId: p.nodeId, weight: p.weight })),
      ],
      connectedWeight: () =>
        this.connected ?? (this.self?.weight ?? 0n) + this.peers.reduce((s, p) => s + p.weight, 0n),
      lastAccepted: () => {
        const la = this.local[this.local.length - 1] as ParsedBlock
        return { id: la.id, height: la.height }
      },
      getAcceptedFrontier: async (nodeId) => {
        this.calls.push({ op: 'frontier', peer: nodeId })
        const p = this.peer(nodeId)
        if ((p.frontierFails ?? 0) > 0) {
          p.frontierFails = (p.frontierFails ?? 0) - 1
          throw new Error('stream closed')
        }
        return (p.chain[p.chain.length - 1] as ParsedBlock).id
      },
      getAccepted: async (nodeId, ids) => {
        this.calls.push({ op: 'accepted', peer: nodeId })
        const p = this.peer(nodeId)
        const tip = p.chain[p.chain.length - 1] as ParsedBlock
        return answerGetAccepted(
          ids,
          lookupIn(p.chain),
          { id: tip.id, height: tip.height },
          async (h) => p.chain[h]?.id,
        )
      },
      getAncestors: (nodeId, id) => {
        this.calls.push({ op: 'ancestors', peer: nodeId, id })
        const p = this.peer(nodeId)
        const latency = p.latencyMs ?? 0
        const faulty = p.ancestorsFault !== undefined && (p.faultCount === undefined || p.faultCount-- > 0)
        if (faulty && (p.ancestorsFault === 'timeout' || p.ancestorsFault === 'reject')) {
          const ms = p.ancestorsFault === 'timeout' ? TIMEOUT_MS : 0
          return this.delay(ms, () => {
            throw new Error(`GetAncestors to ${nodeId} failed`)
          })
        }
        return this.delay(latency, () => undefined).then(async () => {
          if (faulty && p.ancestorsFault === 'garbage') return [enc.encode('garbage'), enc.encode('more')]
          if (faulty && p.ancestorsFault === 'empty') return []
          const answer = await collectAncestors(id, lookupIn(p.chain), { maxContainers: p.maxContainers ?? 2000 })
          return faulty && p.ancestorsFault === 'wrong' ? answer.slice(1) : answer
        })
      },
      parse: parseBlock,
      has: async (id) => this.local.some((b) => b.id === id),
      execute: async (blk) => {
        const la = this.local[this.local.length - 1] as ParsedBlock
        if (blk.parentId !== la.id || blk.height !== la.height + 1) throw new Error(`execute: ${blk.id} not on tip`)
        this.local.push(blk)
        this.executedHeights.push(blk.height)
        this.onExecuted(blk)
      },
      random: () => this.random(),
      now: () => this.clock.now(),
    }
  }
}
