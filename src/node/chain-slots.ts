/**
 * The IO slots of the chain lifecycle machine. Initialization asks the validator set whether anyone else
 * validates (with nobody to learn from, a chain goes straight to normal operation). Bootstrapping from peers
 * arrives with the consensus issue: until then a chain that has other validators waits in `bootstrapping`
 * (and info.isBootstrapped says false) until it is told `chain.bootstrapped` or the node stops.
 */
import { fromPromise } from 'xstate'
import type { ChainInitResult, ChainInput } from '../../actors/chains/chain.machine.js'
import type { Logger } from '../log/logger.js'
import type { ValidatorSet } from '../network/validators.js'

export function chainSlots(deps: { validators: ValidatorSet; log: (alias: string) => Logger }) {
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
  }
}
