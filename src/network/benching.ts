/**
 * Request tracking and benching: one benchlist actor per chain (`benchlist:<alias>`, spawned under the network
 * actor) weighted by the ValidatorSet, and the RequestTracker (adaptive timeout) that feeds them. A benchlist's
 * `bench.changed` reaches the peer's session (`session.benched`) and the PeerTable's `benched` aliases, with a
 * log line. Reference: /work/shared/reference/consensus.md 4.5-4.6.
 */
import type { Subscription } from 'xstate'
import { type BenchlistConfig, maxBenchedPortion, type ValidatorWeight } from '../../actors/peers/benchlist.js'
import type { BenchlistEmitted } from '../../actors/peers/benchlist.machine.js'
import { SystemId } from '../../actors/system-ids.js'
import type { NetworkCore } from './core.js'
import { type BenchlistRef, RequestTracker } from './request-tracker.js'

/** The snow defaults the stake cap derives from when the config has no snow parameters: K=20, alphaConfidence=15. */
export const DEFAULT_SNOW = { k: 20, alphaConfidence: 15 } as const

type BenchlistActor = BenchlistRef & { on(type: 'bench.changed', f: (e: BenchlistEmitted) => void): Subscription }

export class Benching {
  readonly tracker: RequestTracker
  readonly #refs = new Map<string, BenchlistActor>()
  readonly #aliases = new Map<string, string>()
  readonly #subs: Subscription[] = []
  #validatorsKey = ''

  constructor(private readonly n: NetworkCore) {
    const { o } = n
    this.tracker = new RequestTracker({
      now: n.now,
      benchlist: (chainId) => this.#refs.get(chainId),
      weight: (nodeId) => Number(o.validators.weight(nodeId)),
      timeout: { ...o.config.networkTimeout, ...o.requestTimeout },
    })
  }

  /** the benchlist settings: the flags, the stake cap from the snow parameters, then the test overrides */
  config(): Partial<BenchlistConfig> {
    const { o } = this.n
    const snow = o.snow ?? DEFAULT_SNOW
    return {
      ...o.config.benchlist,
      maxBenchedPortion: maxBenchedPortion(snow.k, snow.alphaConfidence),
      ...o.benchlist,
    }
  }

  /** Spawns one benchlist per chain under the network actor and listens to it. */
  start(): void {
    const n = this.n
    if ((n.o.chains ?? []).length === 0) return
    const network = n.o.system.get(SystemId.Network)
    if (!network) throw new Error('the network actor is not running')
    const validators = this.#validators()
    this.#validatorsKey = keyOf(validators)
    for (const { chainId, alias } of n.o.chains ?? []) {
      this.#aliases.set(chainId, alias)
      network.send({ type: 'network.startBenchlist', alias, input: { chainId, config: this.config(), validators } })
      const ref = n.o.system.get(SystemId.benchlist(alias)) as BenchlistActor | undefined
      if (!ref) continue
      this.#refs.set(chainId, ref)
      this.#subs.push(ref.on('bench.changed', (e) => n.guard('bench change', () => this.#onChanged(e))))
    }
  }

  /** primary aliases of chain IDs (the ID itself when unknown), for the PeerTable */
  aliasesOf(chainIds: readonly string[]): string[] {
    return chainIds.map((id) => this.#aliases.get(id) ?? id)
  }

  /** Re-reads the ValidatorSet (it changes with connections when sybil protection is off) and tells the benchlists. */
  validatorsMaybeChanged(): void {
    if (this.#refs.size === 0) return
    const validators = this.#validators()
    const key = keyOf(validators)
    if (key === this.#validatorsKey) return
    this.#validatorsKey = key
    const now = this.n.now()
    for (const ref of this.#refs.values()) ref.send({ type: 'bench.validatorsChanged', validators, now })
  }

  #validators(): ValidatorWeight[] {
    return this.n.o.validators.list().map((v) => ({ nodeId: v.nodeId, weight: Number(v.weight) }))
  }

  #onChanged(e: BenchlistEmitted): void {
    const n = this.n
    const alias = this.#aliases.get(e.chainId) ?? e.chainId
    n.log.info(`${e.benched ? 'benched' : 'unbenched'} peer ${e.nodeId} on ${alias}`, { chainID: e.chainId })
    const session = n.sessions.get(e.nodeId)
    if (session !== undefined) {
      n.sessionBridge.send(session, { type: 'session.benched', chainId: e.chainId, benched: e.benched })
    }
    const entry = n.o.peers.get(e.nodeId)
    if (entry !== undefined) {
      const rest = entry.benched.filter((a) => a !== alias)
      n.o.peers.upsert({ ...entry, benched: e.benched ? [...rest, alias].sort() : rest })
    }
  }

  close(): void {
    this.tracker.close()
    for (const s of this.#subs.splice(0)) s.unsubscribe()
  }
}

const keyOf = (validators: ValidatorWeight[]): string =>
  validators
    .map((v) => `${v.nodeId}:${v.weight}`)
    .sort()
    .join(',')
