/**
 * The IO slots of the chain lifecycle machine. Initialization asks the validator set whether anyone else
 * validates (with nobody to learn from, a chain goes straight to normal operation). Bootstrapping from peers
 * arrives with the consensus issue: until then a chain that has other validators waits in `bootstrapping`
 * (and info.isBootstrapped says false) until it is told `chain.bootstrapped` or the node stops. In normal
 * operation a lone validator produces its own blocks.
 */
import { fromCallback, fromPromise } from 'xstate'
import type { ChainEvent, ChainInitResult, ChainInput } from '../../actors/chains/chain.machine.js'
import type { Logger } from '../log/logger.js'
import type { ValidatorSet } from '../network/validators.js'

export function chainSlots(deps: {
  validators: ValidatorSet
  log: (alias: string) => Logger
  /** starts a chain's block producer (a lone validator's); returns its stop, or undefined if the chain has none */
  startProducer: (alias: string) => (() => void) | undefined
}) {
  return {
    initializeChain: fromPromise<ChainInitResult, ChainInput>(async ({ input }) => {
      const hasOtherValidators = deps.validators.hasOtherValidators()
      deps.log(input.alias).info('chain initialized', { chainId: input.chainId, hasOtherValidators })
      return { hasOtherValidators }
    }),
    bootstrapChain: fromPromise<void, ChainInput>(
      ({ input, signal }) =>
        new Promise<void>((resolve) => {
          deps.log(input.alias).info('waiting for peers to bootstrap from', { chainId: input.chainId })
          signal.addEventListener('abort', () => resolve(), { once: true })
        }),
    ),
    produceBlocks: fromCallback<ChainEvent, ChainInput>(({ input }) => {
      if (deps.validators.hasOtherValidators()) return undefined
      return deps.startProducer(input.alias)
    }),
  }
}
