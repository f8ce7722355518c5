/**
 * The IO slots of the chain lifecycle machine. Initialization asks the validator set whether anyone else
 * validates: with nobody to learn from, a chain goes straight to normal operation and a lone validator produces
 * its own blocks. Otherwise the chain's bootstrapper actor runs (`bootstrapChain`), and normal operation runs the
 * Snowman engine with its block builder and tx gossip (`produceBlocks`).
 */
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate'
import type { BootstrapOutput, ChainEvent, ChainInitResult, ChainInput } from '../../actors/chains/chain.machine.js'
import type { SnowmanChain } from '../chains/snowman/chain.js'
import type { Logger } from '../log/logger.js'
import type { ValidatorSet } from '../network/validators.js'

export function chainSlots(deps: {
  validators: ValidatorSet
  log: (alias: string) => Logger
  /** starts a chain's block producer (a lone validator's); returns its stop, or undefined if the chain has none */
  startProducer: (alias: string) => (() => void) | undefined
  /** the chain's consensus on the peer network, if it has one (set once the network is up) */
  snowman: (alias: string) => SnowmanChain | undefined
  /** resolves once the network and the chains' consensus exist */
  ready: Promise<void>
}) {
  return {
    initializeChain: fromPromise<ChainInitResult, ChainInput>(async ({ input }) => {
      await deps.ready
      const hasOtherValidators = deps.validators.hasOtherValidators()
      deps.log(input.alias).info('chain initialized', { chainId: input.chainId, hasOtherValidators })
      return { hasOtherValidators }
    }),
    /** runs the chain's bootstrapper actor (its own root in dev tools: `bootstrapper:<alias>`) */
    bootstrapChain: fromPromise<BootstrapOutput, ChainInput>(async ({ input, signal }) => {
      const chain = deps.snowman(input.alias)
      if (chain === undefined) return { executed: 0 }
      return runBootstrapper(chain, signal)
    }),
    produceBlocks: fromCallback<ChainEvent, ChainInput>(({ input }) => {
      const chain = deps.validators.hasOtherValidators() ? deps.snowman(input.alias) : undefined
      if (chain !== undefined) return chain.startConsensus()
      return deps.startProducer(input.alias)
    }),
  }
}

/** Runs the chain's bootstrapper actor to its end; stopping the chain (abort) stops it. */
async function runBootstrapper(chain: SnowmanChain, signal: AbortSignal): Promise<BootstrapOutput> {
  const actor = createActor(chain.bootstrapLogic(), chain.bootstrapActorOptions()).start()
  const stop = () => actor.stop()
  signal.addEventListener('abort', stop, { once: true })
  try {
    const done = await waitFor(actor, (s) => s.status === 'done', { timeout: Number.POSITIVE_INFINITY })
    return done.output ?? { executed: 0 }
  } finally {
    signal.removeEventListener('abort', stop)
  }
}
