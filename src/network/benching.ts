/**
 * Request tracking and benching: the RequestTracker (adaptive timeout) and the per-chain benchlists it feeds. A
 * chain's benchlist is its chain actor's child (`benchlist:<alias>`, actors/chains/chain.machine.ts); it is found
 * through the actor system by chain ID, fed the tracker's successes and failures and the ValidatorSet's weights,
 * and tells the peer sessions itself. Here its `bench.changed` becomes a log line. Reference:
 * ../shared/reference/consensus.md 4.5-4.6.
 */
import type { AnyActorRef, Subscription } from 'xstate'
import { type BenchlistConfig, maxBenchedPortion, type ValidatorWeight } from '../../actors/peers/benchlist.js'
import type { BenchlistEmitted } from '../../actors/peers/benchlist.machine.js'
import { SystemId } from '../../actors/system-ids.js'
import type { Logger } from '../log/logger.js'
import type { ActorLookup } from './connections.js'
import { type BenchlistRef, RequestTracker } from './request-tracker.js'
import { guarded, type NetworkOptions } from './types.js'

/** The snow defaults the stake cap derives from when no snow parameters are given: K=20, alphaConfidence=15. */
export const DEFAULT_SNOW = { k: 20, alphaConfidence: 15 } as const

/** A chain's benchlist settings (its actor's input): the `--benchlist-*` flags and the stake cap from the snow K and αc. */
export function benchlistSettings(
  flags: Partial<BenchlistConfig> | undefined,
  snow: { k: number; alphaConfidence: number } = DEFAULT_SNOW,
): Partial<BenchlistConfig> {
  return { ...flags, maxBenchedPortion: maxBenchedPortion(snow.k, snow.alphaConfidence) }
}

type BenchlistActor = BenchlistRef & Pick<AnyActorRef, 'on'>

export class Benching {
  readonly tracker: RequestTracker
  readonly #aliases = new Map<string, string>()
  /** the benchlist actor last seen per chain ID, and the listener on it */
  readonly #seen = new Map<string, { ref: BenchlistActor; sub: Subscription }>()
  #system: ActorLookup | undefined
  #validatorsKey = ''

  constructor(
    private readonly o: Pick<NetworkOptions, 'config' | 'validators' | 'chains' | 'requestTimeout'>,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {
    for (const { chainId, alias } of o.chains ?? []) this.#aliases.set(chainId, alias)
    this.tracker = new RequestTracker({
      now,
      benchlist: (chainId) => this.#benchlist(chainId),
      weight: (nodeId) => Number(o.validators.weight(nodeId)),
      timeout: { ...o.config.networkTimeout, ...o.requestTimeout },
    })
  }

  /** The actor system, once the node's actors run: meets the chains' benchlists. */
  attach(system: ActorLookup): void {
    this.#system = system
    for (const chainId of this.#aliases.keys()) this.#benchlist(chainId)
  }

  /** Re-reads the ValidatorSet (it changes with connections when sybil protection is off) and tells the benchlists. */
  validatorsMaybeChanged(): void {
    const validators = this.#validators()
    const key = keyOf(validators)
    if (key === this.#validatorsKey) return
    this.#validatorsKey = key
    const now = this.now()
    for (const chainId of this.#aliases.keys()) {
      this.#benchlist(chainId)?.send({ type: 'bench.validatorsChanged', validators, now })
    }
  }

  /**
   * The chain's benchlist actor (`benchlist:<alias>` in the actor system), if it runs. One met for the first time
   * gets the current validator weights and a listener on its `bench.changed`.
   */
  #benchlist(chainId: string): BenchlistActor | undefined {
    const alias = this.#aliases.get(chainId)
    if (alias === undefined) return undefined
    const ref = this.#system?.get(SystemId.benchlist(alias)) as BenchlistActor | undefined
    const seen = this.#seen.get(chainId)
    if (ref === seen?.ref) return ref
    seen?.sub.unsubscribe()
    this.#seen.delete(chainId)
    if (ref === undefined) return undefined
    const sub = ref.on('bench.changed', (e) => guarded(this.log, 'bench change', () => this.#onChanged(e)))
    this.#seen.set(chainId, { ref, sub })
    ref.send({ type: 'bench.validatorsChanged', validators: this.#validators(), now: this.now() })
    return ref
  }

  #validators(): ValidatorWeight[] {
    return this.o.validators.list().map((v) => ({ nodeId: v.nodeId, weight: Number(v.weight) }))
  }

  #onChanged(e: BenchlistEmitted): void {
    const alias = this.#aliases.get(e.chainId) ?? e.chainId
    this.log.info(`${e.benched ? 'benched' : 'unbenched'} peer ${e.nodeId} on ${alias}`, { chainID: e.chainId })
  }

  close(): void {
    this.tracker.close()
    for (const { sub } of this.#seen.values()) sub.unsubscribe()
    this.#seen.clear()
  }
}

const keyOf = (validators: ValidatorWeight[]): string =>
  validators
    .map((v) => `${v.nodeId}:${v.weight}`)
    .sort()
    .join(',')
