/**
 * The chain actor's logic with its IO slots filled, shared by every chain: each slot finds its chain's runtime by
 * chain ID in the registry the composition root fills (chain-runtimes.ts). The chain waits for its VM to be
 * registered (`awaitVm`), then initialization opens it (its VM, consensus and routes: chain-host.ts) and asks
 * whether anyone else validates: with nobody to learn from, a chain goes straight to normal operation and a lone validator produces its
 * own blocks (`produceBlocks`, running while the chain is in normalOp). Otherwise the chain's bootstrapper runs
 * (`bootstrapIo`), then its engine (`engineIo`), both IO of the chain's Snowman runtime (src/chains/snowman/).
 */
import { EMPTY, filter, from, map, merge, mergeMap, Observable, of, throwError } from 'rxjs'
import { fromEventObservable, fromPromise } from 'xstate'
import {
  type AwaitVmInput,
  type ChainEmitted,
  type ChainEvent,
  type ChainInitResult,
  type ChainIoInput,
  type ChainSlotInput,
  chainMachine,
} from '../../actors/chains/chain.machine.js'
import {
  type BootstrapIoInput,
  type BootstrapperEvent,
  bootstrapperMachine,
} from '../../actors/consensus/bootstrapper.machine.js'
import { type EngineIoInput, type EngineMachineEvent, engineMachine } from '../../actors/consensus/engine.machine.js'
import { profilerMachine } from '../../actors/profiler/profiler.machine.js'
import { profilerSlots } from '../profiling/profiler.impl.js'
import { emitted$ } from '../runtime/emitted.js'
import type { ChainRuntime, ChainRuntimes } from './chain-runtimes.js'

export interface ChainLogicDeps {
  runtimes: ChainRuntimes
  /** resolves once the VM a chain declares (an alias or a VM ID) is registered */
  vmRegistered: (vm: string) => Promise<void>
  /** opens the chain (its VM, consensus and routes) and registers its runtime */
  openChain: (chainId: string) => Promise<ChainRuntime>
}

/** `chainMachine` provided with every slot of the chain and of its children. */
export function chainLogic({ runtimes, vmRegistered, openChain }: ChainLogicDeps) {
  const snowman = (chainId: string) => runtimes.get(chainId)?.snowman
  return chainMachine.provide({
    actors: {
      awaitVm: fromPromise<void, AwaitVmInput>(({ input }) => vmRegistered(input.vm)),
      initializeChain: fromPromise<ChainInitResult, ChainSlotInput>(async ({ input }) => {
        const runtime = await openChain(input.chainId)
        const hasOtherValidators = runtime.hasOtherValidators()
        runtime.log.info('chain initialized', { chainId: input.chainId, hasOtherValidators })
        return { hasOtherValidators, profiler: runtime.profiler !== undefined }
      }),
      /**
       * the chain's own IO: its accepted blocks in, transactions admitted into its pool out (answers come back in
       * any order, by request)
       */
      chainIo: fromEventObservable<ChainEvent, ChainIoInput>(({ input }) => {
        const admitted = emitted$<ChainEmitted>(input.self).pipe(
          filter((e) => e.type === 'chain.admitTxs'),
          mergeMap((e) => {
            const admit = runtimes.get(input.chainId)?.admitTxs
            if (admit !== undefined) return from(admit(e))
            const error = { code: -32000, message: 'this chain takes no transactions', data: null }
            const results = e.txs.map(() => ({ ok: false as const, error }))
            return of({ type: 'chain.txsAdmitted' as const, requestId: e.requestId, results })
          }),
        )
        const accepted = from(runtimes.whenReady(input.chainId)).pipe(
          mergeMap((r) => r.accepted$ ?? EMPTY),
          map((b): ChainEvent => ({ type: 'chain.accepted', height: b.height, id: b.id, at: Date.now() })),
        )
        return merge(admitted, accepted)
      }),
      /** a lone validator's producer runs while subscribed (a chain without one produces nothing) */
      produceBlocks: fromEventObservable<ChainEvent, ChainSlotInput>(
        ({ input }) => new Observable<ChainEvent>(() => runtimes.get(input.chainId)?.startProducer?.()),
      ),
      bootstrapper: bootstrapperMachine.provide({
        actors: {
          bootstrapIo: fromEventObservable<BootstrapperEvent, BootstrapIoInput>(({ input }) => {
            const chain = input.chainId === null ? undefined : snowman(input.chainId)
            if (chain === undefined) return throwError(() => new Error(`chain ${input.chainId} has no consensus`))
            return chain.bootstrapIo(input.self)
          }),
        },
      }),
      engine: engineMachine.provide({
        actors: {
          engineIo: fromEventObservable<EngineMachineEvent, EngineIoInput>(({ input }) => {
            const chain = snowman(input.chainId)
            if (chain === undefined) return throwError(() => new Error(`chain ${input.chainId} has no consensus`))
            return chain.engineIo(input.self)
          }),
        },
      }),
      // every chain's profiler writes into its own chain's directory
      profiler: profilerMachine.provide(profilerSlots((label) => runtimes.byAlias(label)?.profiler)),
    },
  })
}
