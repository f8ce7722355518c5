/**
 * Request tracking and benching: the RequestTracker (adaptive timeout) that feeds each chain's benchlist actor
 * (`benchlist:<alias>`, a child of the chain's actor, found through the actor system), and the validator weights
 * the benchlists need. The benchlist itself decides and tells the peer's session. Reference:
 * ../shared/reference/consensus.md 4.5-4.6.
 */
import { type BenchlistConfig, maxBenchedPortion, type ValidatorWeight } from '../../actors/peers/benchlist.js'
import { SystemId } from '../../actors/system-ids.js'
import type { ActorLookup } from './connections.js'
import { type BenchlistRef, RequestTracker } from './request-tracker.js'
import type { NetworkOptions } from './types.js'

/** The snow defaults the stake cap derives from when the config has no snow parameters: K=20, alphaConfidence=15. */
export const DEFAULT_SNOW = { k: 20, alphaConfidence: 15 } as const

export class Benching {
  readonly tracker: RequestTracker
  readonly #aliases = new Map<string, string>()
  #system: ActorLookup | undefined
  #validatorsKey = ''

  constructor(
    private readonly o: Pick<
      NetworkOptions,
      'config' | 'validators' | 'chains' | 'snow' | 'benchlist' | 'requestTimeout'
    >,
    now: () => number,
  ) {
    for (const { chainId, alias } of o.chains ?? []) this.#aliases.set(chainId, alias)
    this.tracker = new RequestTracker({
      now,
      benchlist: (chainId) => this.#ref(chainId),
      weight: (nodeId) => Number(o.validators.weight(nodeId)),
      timeout: { ...o.config.networkTimeout, ...o.requestTimeout },
    })
  }

  attach(system: ActorLookup): void {
    this.#system = system
  }

  #ref(chainId: string): BenchlistRef | undefined {
    const alias = this.#aliases.get(chainId)
    return alias === undefined ? undefined : (this.#system?.get(SystemId.benchlist(alias)) as BenchlistRef | undefined)
  }

  /** the benchlist settings: the flags, the stake cap from the snow parameters, then the test overrides */
  config(): Partial<BenchlistConfig> {
    const snow = this.o.snow ?? DEFAULT_SNOW
    return {
      ...this.o.config.benchlist,
      maxBenchedPortion: maxBenchedPortion(snow.k, snow.alphaConfidence),
      ...this.o.benchlist,
    }
  }

  /** the validators as the benchlists weigh them */
  validators(): ValidatorWeight[] {
    return this.o.validators.list().map((v) => ({ nodeId: v.nodeId, weight: Number(v.weight) }))
  }

  /** Re-reads the ValidatorSet (it changes with connections when sybil protection is off) and tells the benchlists. */
  validatorsMaybeChanged(now: number): void {
    const validators = this.validators()
    const key = keyOf(validators)
    if (key === this.#validatorsKey) return
    this.#validatorsKey = key
    for (const chainId of this.#aliases.keys()) {
      this.#ref(chainId)?.send({ type: 'bench.validatorsChanged', validators, now })
    }
  }

  close(): void {
    this.tracker.close()
  }
}

const keyOf = (validators: ValidatorWeight[]): string =>
  validators
    .map((v) => `${v.nodeId}:${v.weight}`)
    .sort()
    .join(',')
