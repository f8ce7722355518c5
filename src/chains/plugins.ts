/**
 * VM plugins (`admin.loadVMs`). Each regular file in `--plugin-dir` is a JavaScript module (`.js`/`.mjs`) named
 * after its VM: a VM alias or a CB58 VM ID, extension stripped. The module's default export is the factory:
 *
 *   export default { version: 'v1.0.0', aliases: ['myvm'], createVM(context) { ... } }
 *
 * Loading imports the module once (with a deadline) to read its version, as the reference starts a plugin
 * once to ask it; a module that fails is reported in `failedVMs` and not registered.
 */
import { readdir } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { idFromString, idToString } from '../identity/ids.js'
import { FirnError } from '../runtime/errors.js'
import type { VmRegistry } from './vm-registry.js'

export interface LoadVmsResult {
  newVMs: Record<string, string[]>
  failedVMs?: Record<string, string>
}

const LOAD_TIMEOUT_MS = 10_000
const MAX_PLUGIN_FILES = 1_000

interface PluginFactory {
  version: string
  aliases?: string[]
  createVM: (...args: unknown[]) => unknown
}

export async function loadVmPlugins(dir: string, registry: VmRegistry): Promise<LoadVmsResult> {
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).slice(0, MAX_PLUGIN_FILES)
  const found: { vmId: string; path: string }[] = []
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue // editor swap files, .DS_Store and the like are not plugins
    const name = entry.name.slice(0, entry.name.length - extname(entry.name).length)
    if (name === '') continue
    found.push({ vmId: resolveVmName(name, registry), path: join(dir, entry.name) })
  }
  const newVMs: Record<string, string[]> = {}
  const failedVMs: Record<string, string> = {}
  for (const { vmId, path } of found) {
    if (registry.has(vmId)) continue
    try {
      const factory = await importFactory(path)
      const aliases = (factory.aliases ?? []).filter((a) => a !== vmId)
      registry.register({ id: vmId, aliases, version: factory.version, source: path })
      newVMs[vmId] = aliases
    } catch (err) {
      failedVMs[vmId] = (err as Error).message
    }
  }
  return Object.keys(failedVMs).length > 0 ? { newVMs, failedVMs } : { newVMs }
}

function resolveVmName(name: string, registry: VmRegistry): string {
  const byAlias = registry.resolveAlias(name)
  if (byAlias !== undefined) return byAlias
  try {
    return idToString(idFromString(name))
  } catch {
    throw new FirnError(`invalid vmID: ${JSON.stringify(name)}`)
  }
}

async function importFactory(path: string): Promise<PluginFactory> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`plugin did not load within ${LOAD_TIMEOUT_MS} ms`)), LOAD_TIMEOUT_MS)
  })
  try {
    const mod = (await Promise.race([import(`${pathToFileURL(path).href}?load=${Date.now()}`), deadline])) as {
      default?: unknown
    }
    return checkFactory(mod.default)
  } finally {
    clearTimeout(timer)
  }
}

function checkFactory(f: unknown): PluginFactory {
  if (typeof f !== 'object' || f === null) throw new Error('plugin has no default export object')
  const p = f as Partial<PluginFactory>
  if (typeof p.createVM !== 'function') throw new Error('plugin default export has no createVM function')
  if (typeof p.version !== 'string' || p.version === '') throw new Error('plugin default export has no version string')
  if (p.aliases !== undefined && !(Array.isArray(p.aliases) && p.aliases.every((a) => typeof a === 'string'))) {
    throw new Error('plugin aliases must be an array of strings')
  }
  return p as PluginFactory
}
