/**
 * Registered VMs: the built-in EVM and any plugin loaded from `--plugin-dir`. VM IDs are CB58; built-in IDs are
 * the ASCII name zero-padded to 32 bytes (`evm` -> mgj786NP7u...). `info.getVMs` lists each VM with its aliases
 * minus its own ID string; `info.getNodeVersion` reports each VM's version under its primary alias.
 */
import { idFromAscii, idToString } from '../identity/ids.js'

export interface VmEntry {
  id: string
  /** aliases in insertion order; the first is the primary alias */
  aliases: string[]
  version: string
  /** where a plugin was loaded from; undefined for built-ins */
  source?: string
}

export const EVM_ID = idToString(idFromAscii('evm'))

export class VmRegistry {
  private readonly vms = new Map<string, VmEntry>()
  private readonly aliasToId = new Map<string, string>()

  /** Aliases from `--vm-aliases-file` first, as the reference resolves them. */
  addAlias(vmId: string, alias: string): void {
    if (!this.aliasToId.has(alias)) this.aliasToId.set(alias, vmId)
  }

  register(entry: VmEntry): void {
    this.vms.set(entry.id, entry)
    for (const a of entry.aliases) this.addAlias(entry.id, a)
    this.addAlias(entry.id, entry.id)
  }

  has(vmId: string): boolean {
    return this.vms.has(vmId)
  }

  /** Resolve an alias to a VM ID, or undefined. */
  resolveAlias(name: string): string | undefined {
    return this.aliasToId.get(name)
  }

  list(): VmEntry[] {
    return [...this.vms.values()]
  }
}
