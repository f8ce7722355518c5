/**
 * The VMs this node can run: the built-in EVM (src/chains/builtin-vms.ts) and every plugin loaded from
 * `--plugin-dir` (src/chains/plugins.ts), each with the factory that makes one VM per chain. VM IDs are CB58;
 * built-in IDs are the ASCII name zero-padded to 32 bytes (`evm` -> mgj786NP7u...). Aliases map to one VM each;
 * a VM's aliases keep their insertion order, the first being its primary alias (the ID's own string when it has
 * no other). `info.getVMs` lists each VM with its aliases minus its own ID string; `info.getNodeVersion` reports
 * each VM's version under its primary alias.
 *
 * The registry lives in src/ (it holds functions); actors see only what `admin.loadVMs` answers. The composition
 * root learns of each VM through `registered$` and starts the chains that wait for it.
 */
import { filter, Observable, Subject, take } from 'rxjs'
import { idFromAscii, idToString } from '../identity/ids.js'
import { FirnError } from '../runtime/errors.js'
import type { VmFactory } from './vm.js'

export interface VmEntry {
  id: string
  /** the VM's own aliases (a plugin's `aliases`), without its ID string */
  aliases: string[]
  version: string
  /** makes one VM per chain that runs it */
  factory: VmFactory
  /** the plugin's file; undefined for built-ins (kept in src/, never answered over the API) */
  source?: string
}

export const EVM_ID = idToString(idFromAscii('evm'))

export class VmRegistry {
  private readonly vms = new Map<string, VmEntry>()
  private readonly aliasToId = new Map<string, string>()
  private readonly idToAliases = new Map<string, string[]>()
  private readonly added = new Subject<VmEntry>()

  /**
   * Every registered VM: the ones registered before the subscription first (in registration order), then each
   * new one as it registers. Each VM is seen once.
   */
  readonly registered$: Observable<VmEntry> = new Observable<VmEntry>((subscriber) => {
    const before = [...this.vms.values()]
    // subscribe first: a VM registered while the earlier ones are replayed is still seen
    const live = this.added.subscribe(subscriber)
    for (const entry of before) {
      if (subscriber.closed) break
      subscriber.next(entry)
    }
    return live
  })

  /**
   * The VM `name` names (an alias, its own or added, or its ID) once it is registered, at once if it is already:
   * emits its entry once and completes. A chain declared with a VM that is not loaded yet waits on this.
   */
  registration$(name: string): Observable<VmEntry> {
    return this.registered$.pipe(
      filter((e) => e.id === name || this.aliases(e.id).includes(name)),
      take(1),
    )
  }

  /**
   * Adds `alias` for `vmId` (before or after the VM registers, as `--vm-aliases-file` entries come first in the
   * reference). Returns false when the alias already names another VM; adding the same pair twice is a no-op.
   */
  addAlias(vmId: string, alias: string): boolean {
    const owner = this.aliasToId.get(alias)
    if (owner !== undefined) return owner === vmId
    this.aliasToId.set(alias, vmId)
    const list = this.idToAliases.get(vmId)
    if (list === undefined) this.idToAliases.set(vmId, [alias])
    else list.push(alias)
    return true
  }

  /** Registers a VM with its aliases and its ID string as an alias; throws when the ID or an alias is taken. */
  register(entry: VmEntry): void {
    if (this.vms.has(entry.id)) throw new FirnError(`VM ${entry.id} is already registered`)
    for (const alias of entry.aliases) {
      const owner = this.aliasToId.get(alias)
      if (owner !== undefined && owner !== entry.id) {
        throw new FirnError(`alias ${JSON.stringify(alias)} already names VM ${owner}`)
      }
    }
    this.vms.set(entry.id, entry)
    for (const a of entry.aliases) this.addAlias(entry.id, a)
    this.addAlias(entry.id, entry.id)
    this.added.next(entry)
  }

  has(vmId: string): boolean {
    return this.vms.has(vmId)
  }

  get(vmId: string): VmEntry | undefined {
    return this.vms.get(vmId)
  }

  /** The VM an alias names (registered or not), or undefined. */
  resolveAlias(name: string): string | undefined {
    return this.aliasToId.get(name)
  }

  /** Every alias of a VM in insertion order, its ID string included once it is registered. */
  aliases(vmId: string): string[] {
    return [...(this.idToAliases.get(vmId) ?? [])]
  }

  /** The first alias added for the VM (its ID string when it has no other). */
  primaryAlias(vmId: string): string {
    return this.idToAliases.get(vmId)?.[0] ?? vmId
  }

  /** The registered VMs in registration order. */
  list(): VmEntry[] {
    return [...this.vms.values()]
  }
}
