/**
 * eth_call's answers at accepted blocks, kept for the next identical call.
 *
 * A call's outcome is a function of the block it runs on (its state root and header: the hash names both), the
 * call's arguments and the RPC gas cap: nothing else enters the run (the block context comes from the header,
 * BLOCKHASH from the block's ancestors, which an accepted block's hash fixes). So an outcome computed once is the
 * outcome of every later identical call at that block. Dapps poll the same views (balanceOf, getReserves,
 * multicall batches) at the head from many clients; each poll after the first at a block is a lookup.
 *
 * What is kept: only runs that completed inside the EVM (a success, a revert, a vm error such as out of gas), at
 * a block that was accepted when resolved, without state or block overrides and not at `pending` (built from the
 * clock and the estimated base fee). Runs that ended in an error before execution (MessageError), on the EVM
 * timeout or on the caller's abort are never kept. The key is the block hash, the gas cap and the call object's
 * JSON text as sent (two spellings of one call are two entries); calls whose text exceeds MAX_KEY_CHARS and
 * results over MAX_RESULT_BYTES are not kept. At most MAX_ENTRIES entries, the oldest dropped first: about
 * MAX_ENTRIES * (MAX_KEY_CHARS * 2 + MAX_RESULT_BYTES) = 12 MiB at most, far less for real calls.
 *
 * docs/performance.md has the figures with and without hits.
 */
import { bytesToHex } from '@ethereumjs/util'
import { remember } from '../../../runtime/bounded-map.js'
import { perObject } from '../../../runtime/per-object.js'
import type { EvmChainCore } from '../exec/chain.js'
import type { ExecutionResult } from './exec-message.js'

export const MAX_ENTRIES = 1024
export const MAX_KEY_CHARS = 2048
export const MAX_RESULT_BYTES = 8192

export class CallResults {
  readonly #entries = new Map<string, ExecutionResult>()
  hits = 0
  misses = 0

  get size(): number {
    return this.#entries.size
  }

  /** The key of a call at an accepted block, or undefined when such a call is not kept (too long). */
  key(blockHash: Uint8Array, gasCap: bigint, callJson: string): string | undefined {
    if (callJson.length > MAX_KEY_CHARS) return undefined
    return `${bytesToHex(blockHash)}|${gasCap}|${callJson}`
  }

  get(key: string): ExecutionResult | undefined {
    const hit = this.#entries.get(key)
    if (hit === undefined) this.misses++
    else this.hits++
    return hit
  }

  /** Keep a completed run's outcome (frozen: callers only read it). */
  put(key: string, res: ExecutionResult): void {
    if (res.returnData.length > MAX_RESULT_BYTES) return
    remember(this.#entries, key, Object.freeze({ ...res, returnData: res.returnData.slice() }), MAX_ENTRIES)
  }

  clear(): void {
    this.#entries.clear()
  }
}

/** The kept call outcomes of a chain. */
export const callResults: (core: EvmChainCore) => CallResults = perObject(() => new CallResults())
