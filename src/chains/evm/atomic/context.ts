/**
 * An EVM chain's atomic backend from what the node tells its VM (src/chains/vm.ts `ChainVmContext`): the network
 * ID, the chain's ID, the network's AVAX asset and X chain, shared memory, the chain aliases. A chain the node
 * shares no memory with (or whose context lacks the primary network's IDs) takes no atomic txs.
 *
 * `sameSubnet` (the reference's `verify.SameSubnet` for the primary network): the X and P chains and every chain
 * this node knows by ID, except this one: so the C chain and another EVM chain of the network move AVAX between
 * them, and a chain the node does not know is `tx has wrong chain ID`.
 */
import { idFromString, idToString } from '../../../identity/ids.js'
import type { ChainVmContext } from '../../vm.js'
import type { EvmChainCore } from '../exec/chain.js'
import { AtomicBackend } from './backend.js'
import { EMPTY_ID, fromHex, toHex } from './hex.js'
import type { Hex } from './types.js'
import type { SyntaxContext } from './verify.js'

export type AtomicFactory = (core: EvmChainCore, now: () => number) => AtomicBackend

/** the chain's sublevel of accepted atomic txs: tx ID -> u64 height ‖ signed bytes */
export const ATOMIC_TX_SUBLEVEL = 'atomicTxs'

export function atomicSyntaxContext(ctx: ChainVmContext): SyntaxContext | undefined {
  const { lookupChain, avaxAssetId, xChainId } = ctx
  if (lookupChain === undefined || avaxAssetId === undefined || xChainId === undefined) return undefined
  const self = toHex(idFromString(ctx.chainId))
  const x = toHex(idFromString(xChainId))
  const sameSubnet = (chain: Hex): boolean => {
    const id = chain.toLowerCase()
    if (id === self) return false
    if (id === x || id === EMPTY_ID) return true
    try {
      lookupChain(idToString(fromHex(id, 32, 'chain ID')))
      return true
    } catch {
      return false
    }
  }
  return {
    networkId: ctx.networkId,
    chainId: self,
    avaxAssetId: toHex(idFromString(avaxAssetId)),
    xChainId: x,
    sameSubnet,
  }
}

/** The chain's atomic backend, or undefined when the node shares no memory with it. */
export function atomicFactory(ctx: ChainVmContext): AtomicFactory | undefined {
  const syntax = atomicSyntaxContext(ctx)
  const memory = ctx.sharedMemory
  if (syntax === undefined || memory === undefined) return undefined
  return (core, now) =>
    new AtomicBackend({
      ctx: syntax,
      memory,
      index: core.store.sublevel(ATOMIC_TX_SUBLEVEL),
      now,
      warn: (message, fields) => ctx.log.warn(message, fields),
    })
}
