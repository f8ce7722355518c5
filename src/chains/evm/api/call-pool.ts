/**
 * VMs for calls (eth_call, estimateGas, createAccessList), kept per state root for the next call at that root.
 *
 * Building a state view and a VM was ~100 us of an ERC-20 balanceOf eth_call (a trie, a state manager with its
 * caches, an EVM with its journal, a Common copy), more than running the call. A run takes a VM of its root from
 * here (or a new one), runs inside one outer checkpoint of the VM's view, and gives it back: the view reverted to
 * that checkpoint (every account, storage and code write of the run undone: the caches are ethereumjs' own
 * checkpointed caches and calls never write a trie), the journal's warm sets, touched accounts and transient
 * storage emptied, as ethereumjs' runTx leaves them. A VM comes back only when the run left it balanced (no
 * checkpoint of the EVM's open: a run stopped by its guard or by a thrown error inside the EVM is dropped), so a
 * run never sees another's writes; runs with state overrides get a VM of their own and never come here.
 *
 * Bounded: VMs for the RECENT_ROOTS newest roots, IDLE_PER_ROOT each (as many as calls ran at once). A taken VM
 * that is not given back (an override, a dropped run) is garbage like any other object.
 */
import type { EVM, EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { bytesToHex } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { remember } from '../../../runtime/bounded-map.js'
import { perObject } from '../../../runtime/per-object.js'
import { createAvaVM } from '../exec/block-run.js'
import type { EvmChainCore } from '../exec/chain.js'
import type { AvaStateManager } from '../state/state-manager.js'

export const RECENT_ROOTS = 4
export const IDLE_PER_ROOT = 8

/** A guarded VM over its own view (the guard attaches per run: call-guard.ts). */
export interface CallVM {
  vm: VM
  sm: AvaStateManager
  /** the root it was taken for; undefined: not pooled (state overrides) */
  root?: string
}

export class CallPool {
  readonly #idle = new Map<string, CallVM[]>()
  readonly #core: EvmChainCore
  readonly #blockchain: EVMMockBlockchainInterface

  constructor(core: EvmChainCore) {
    this.#core = core
    // BLOCKHASH of calls: the canonical index
    this.#blockchain = core.canonicalHashes()
  }

  /** idle VMs (for tests and metrics) */
  get idle(): number {
    let n = 0
    for (const list of this.#idle.values()) n += list.length
    return n
  }

  /**
   * A VM at `root` with one checkpoint open on its view. Throws `missing trie node <root>` when the root's state
   * is not kept (pruned since an idle VM was made: checked on every take, a node cache hit when it is there).
   */
  async take(root: Uint8Array): Promise<CallVM> {
    const key = bytesToHex(root)
    const idle = this.#idle.get(key)?.pop()
    if (idle !== undefined && (await idle.sm.layer.get(key.slice(2))) !== undefined) {
      await idle.sm.checkpoint()
      return idle
    }
    const entry = await this.make(await this.#core.stateAt(root))
    entry.root = key
    await entry.sm.checkpoint()
    return entry
  }

  /** A guarded VM over `sm` (its own, with overrides applied: never pooled). */
  async make(sm: AvaStateManager): Promise<CallVM> {
    return { vm: await createAvaVM(this.#core.common, sm, this.#blockchain, true), sm }
  }

  /** Back after a run: reverted to the take and kept, when the run left it balanced; otherwise dropped. */
  async give(entry: CallVM): Promise<void> {
    const { root, sm, vm } = entry
    if (root === undefined) return
    const journal = vm.evm.journal
    if (sm.checkpoints !== 1 || (journal as unknown as { journalHeight: number }).journalHeight !== 0) return
    await sm.revert()
    journal.cleanJournal()
    delete journal.accessList
    delete journal.preimages
    ;(vm.evm as EVM).transientStorage.clear()
    const list = this.#idle.get(root) ?? remember(this.#idle, root, [], RECENT_ROOTS)
    if (list.length < IDLE_PER_ROOT) list.push(entry)
  }

  clear(): void {
    this.#idle.clear()
  }
}

/** The call VMs of a chain. */
export const callPool: (core: EvmChainCore) => CallPool = perObject((core: EvmChainCore) => new CallPool(core))
