/**
 * VM plugins (`admin.loadVMs`, and once at start-up). Each regular file in `--plugin-dir` (or a symlink to one)
 * is considered, dotfiles skipped, its extension stripped: the name is a VM alias or a CB58 VM ID (a name that is
 * neither fails the whole scan with the reference's `invalid vmID: "<name>"`). VMs already registered are skipped.
 * Each new VM's file must be a JavaScript module (`.js` or `.mjs`) whose default export is a {@link VmFactory}:
 *
 *   export default { version: 'v1.0.0', aliases: ['myvm'], createVM() { return new MyVm() } }
 *
 * Loading imports the module (a deadline covers the import and the check) and calls `createVM()` once to check
 * that what it makes implements {@link ChainVm} (the instance is dropped, never initialized), as the reference
 * starts a plugin once to ask it. What passes is registered with its factory; what does not is reported in
 * `failedVMs` with the reason (texts: `PluginFailure`). No plugin directory means no plugins: `{"newVMs": {}}`.
 * Errors and reasons never carry the host's absolute paths (file names at most).
 */
import type { Dirent } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { LoadVmsResult } from '../../actors/node.machine.js'
import { idFromString, idToString } from '../identity/ids.js'
import { FirnError } from '../runtime/errors.js'
import { chainVmProblem, type VmFactory } from './vm.js'
import type { VmRegistry } from './vm-registry.js'

/** what `admin.loadVMs` answers (the node actor's `loadVMs` slot output) */
export type { LoadVmsResult } from '../../actors/node.machine.js'

export interface LoadVmsOptions {
  /** the deadline of one plugin's import and check (default 10 s) */
  timeoutMs?: number
}

const LOAD_TIMEOUT_MS = 10_000
const MAX_PLUGIN_FILES = 1_000
const MODULE_EXTENSIONS = new Set(['.js', '.mjs'])

/** The reasons `failedVMs` gives (besides a module's own error, and chainVmProblem's texts). */
export const PluginFailure = {
  notAModule: 'not a JavaScript module (.js or .mjs)',
  manyFiles: (files: string[]) => `more than one plugin file names this VM: ${files.join(', ')}`,
  importFailed: (message: string) => `plugin failed to load: ${message}`,
  timeout: (ms: number) => `plugin did not load within ${ms} ms`,
  noDefaultExport: 'plugin has no default export object',
  noCreateVM: 'plugin default export has no createVM function',
  noVersion: 'plugin default export has no version string',
  badAliases: 'plugin aliases must be an array of strings',
  createVMFailed: (message: string) => `createVM() failed: ${message}`,
} as const

interface PluginFile {
  /** the file's name in the plugin directory */
  name: string
  vmId: string
}

export async function loadVmPlugins(
  dir: string,
  registry: VmRegistry,
  opts: LoadVmsOptions = {},
): Promise<LoadVmsResult> {
  const files = await pluginFiles(dir, registry)
  const byVm = new Map<string, string[]>()
  for (const { name, vmId } of files) {
    if (registry.has(vmId)) continue // already registered: skipped, as the reference does
    byVm.set(vmId, [...(byVm.get(vmId) ?? []), name])
  }
  const newVMs: Record<string, string[]> = {}
  const failedVMs: Record<string, string> = {}
  for (const [vmId, names] of byVm) {
    try {
      if (names.length > 1) throw new Error(PluginFailure.manyFiles(names))
      const name = names[0]!
      if (!MODULE_EXTENSIONS.has(extname(name))) throw new Error(PluginFailure.notAModule)
      const factory = await withDeadline(loadFactory(join(dir, name)), opts.timeoutMs ?? LOAD_TIMEOUT_MS)
      const aliases = (factory.aliases ?? []).filter((a) => a !== vmId)
      registry.register({ id: vmId, aliases, version: factory.version, factory, source: join(dir, name) })
      newVMs[vmId] = registry.aliases(vmId).filter((a) => a !== vmId)
    } catch (err) {
      failedVMs[vmId] = hidePaths(err instanceof Error ? err.message : String(err))
    }
  }
  return Object.keys(failedVMs).length > 0 ? { newVMs, failedVMs } : { newVMs }
}

/** The directory's plugin candidates, sorted by name, each resolved to a VM ID (or the whole scan fails). */
async function pluginFiles(dir: string, registry: VmRegistry): Promise<PluginFile[]> {
  let entries: Dirent[]
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    // no plugin directory: no plugins (the reference creates its default directory at start-up)
    if (code === 'ENOENT' || code === 'ENOTDIR') return []
    throw new FirnError(`couldn't read the plugin directory: ${fsReason(err)}`)
  }
  const names: string[] = []
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.')) continue // editor swap files, .DS_Store and the like are not plugins
    if (entry.isFile() || (entry.isSymbolicLink() && !(await isDirectory(join(dir, entry.name))))) {
      names.push(entry.name)
    }
    if (names.length >= MAX_PLUGIN_FILES) break
  }
  return names.map((name) => ({
    name,
    vmId: resolveVmName(name.slice(0, name.length - extname(name).length), registry),
  }))
}

const isDirectory = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false, // a dangling link is a file that will not load: its import reports why
  )

function resolveVmName(name: string, registry: VmRegistry): string {
  const byAlias = registry.resolveAlias(name)
  if (byAlias !== undefined) return byAlias
  try {
    return idToString(idFromString(name))
  } catch {
    throw new FirnError(`invalid vmID: ${JSON.stringify(name)}`)
  }
}

/** Imports the module, checks its factory, and checks that one VM it makes implements the interface. */
async function loadFactory(path: string): Promise<VmFactory> {
  let mod: { default?: unknown }
  try {
    // a query string per load: a module changed on disk is imported afresh, not from the module cache
    mod = (await import(`${pathToFileURL(path).href}?load=${Date.now()}`)) as { default?: unknown }
  } catch (err) {
    throw new Error(PluginFailure.importFailed(err instanceof Error ? err.message : String(err)))
  }
  const factory = checkFactory(mod.default)
  let vm: unknown
  try {
    vm = await factory.createVM()
  } catch (err) {
    throw new Error(PluginFailure.createVMFailed(err instanceof Error ? err.message : String(err)))
  }
  const problem = chainVmProblem(vm)
  if (problem !== null) throw new Error(problem)
  return factory
}

function checkFactory(f: unknown): VmFactory {
  if (typeof f !== 'object' || f === null) throw new Error(PluginFailure.noDefaultExport)
  const p = f as Partial<VmFactory>
  if (typeof p.createVM !== 'function') throw new Error(PluginFailure.noCreateVM)
  if (typeof p.version !== 'string' || p.version === '') throw new Error(PluginFailure.noVersion)
  if (p.aliases !== undefined && !(Array.isArray(p.aliases) && p.aliases.every((a) => typeof a === 'string'))) {
    throw new Error(PluginFailure.badAliases)
  }
  return p as VmFactory
}

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(PluginFailure.timeout(ms))), ms)
  })
  try {
    return await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
  }
}

/** `EACCES: permission denied, scandir '/abs/dir'` -> `EACCES: permission denied` (no path). */
function fsReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  const head = /^E[A-Z]+: [^,]+/.exec(e?.message ?? '')
  return head?.[0] ?? e?.code ?? 'unknown error'
}

/** Absolute paths and file URLs in a message are shortened to their file name (and a query string dropped). */
export function hidePaths(message: string): string {
  return message.replace(/(^|[\s'"(`])(?:file:\/\/)?(\/[^\s'"()`]+)/g, (_m, lead: string, path: string) => {
    return lead + basename(path.replace(/\?.*$/, ''))
  })
}
