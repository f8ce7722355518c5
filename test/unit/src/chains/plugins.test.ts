/**
 * admin.loadVMs' scan with real modules: each test writes plugin files to a temporary directory and the loader
 * imports them for real.
 */
import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, beforeEach, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { firstValueFrom, take, toArray } from 'rxjs'
import { registerBuiltinVms } from '../../../../src/chains/builtin-vms.js'
import { evmVmFactory } from '../../../../src/chains/evm/chain-vm.js'
import { hidePaths, loadVmPlugins, PluginFailure } from '../../../../src/chains/plugins.js'
import { chainVmProblem } from '../../../../src/chains/vm.js'
import { EVM_ID, VmRegistry } from '../../../../src/chains/vm-registry.js'
import { idFromAscii, idToString } from '../../../../src/identity/ids.js'
import { FirnError } from '../../../../src/runtime/errors.js'

const KVVM_FILE = fileURLToPath(new URL('../../../../examples/plugins/kvvm.mjs', import.meta.url))
const KVVM_ID = 'pKzWfwFJiwYE8pfXv6iF7r9E8nG68tv8uQuTKUA9Wmv5yUEmM'
const idOf = (name: string) => idToString(idFromAscii(name))

/** A module whose VM has every method of the interface (they do nothing). */
const vmModule = (version: string, aliases: string[], vmFields = '') => `
const noop = async () => undefined
export default {
  version: ${JSON.stringify(version)},
  aliases: ${JSON.stringify(aliases)},
  createVM() {
    return {
      initialize: noop, buildBlock: noop, parseBlock: noop, getBlock: noop, setPreference() {},
      lastAccepted: () => ({ id: '0x', height: 0 }), acceptedIdAt: noop, hasPending: () => false,
      health: noop, createHandlers: async () => ({}), shutdown: noop,
      pending$: { subscribe: () => ({ unsubscribe() {} }) },
      ${vmFields}
    }
  },
}
`

describe('loadVmPlugins (admin.loadVMs)', () => {
  const root = mkdtemp(join(tmpdir(), 'firn-plugins-'))
  let dir = ''
  let n = 0
  let vms: VmRegistry
  beforeEach(async () => {
    dir = join(await root, `case-${n++}`)
    await mkdir(dir)
    vms = new VmRegistry()
    registerBuiltinVms(vms, { evm: evmVmFactory() })
  })
  after(async () => rm(await root, { recursive: true, force: true }))

  const write = (name: string, text: string) => writeFile(join(dir, name), text)

  it('no plugin directory: no VMs and no error', async () => {
    assert.deepEqual(await loadVmPlugins(join(dir, 'missing'), vms), { newVMs: {} })
    await write('a-file', '')
    assert.deepEqual(await loadVmPlugins(join(dir, 'a-file'), vms), { newVMs: {} })
  })

  it('an empty directory: no VMs', async () => {
    assert.deepEqual(await loadVmPlugins(dir, vms), { newVMs: {} })
  })

  it('registers a good plugin with its factory, once', async () => {
    const id = idOf('goodvm')
    await write(`${id}.mjs`, vmModule('v1.2.3', ['goodvm']))
    await write('.hidden.mjs', 'throw new Error("dotfiles are not plugins")')
    await mkdir(join(dir, 'a-directory'))
    const registered = firstValueFrom(vms.registered$.pipe(take(2), toArray()))
    assert.deepEqual(await loadVmPlugins(dir, vms), { newVMs: { [id]: ['goodvm'] } })
    assert.deepEqual(
      (await registered).map((e) => e.id),
      [EVM_ID, id],
    )
    const entry = vms.get(id)!
    assert.equal(entry.version, 'v1.2.3')
    assert.equal(vms.primaryAlias(id), 'goodvm')
    assert.equal(chainVmProblem(await entry.factory.createVM()), null, 'the factory makes VMs')
    // already registered: skipped
    assert.deepEqual(await loadVmPlugins(dir, vms), { newVMs: {} })
  })

  it('loads the example kvvm through a symlink (its imports resolve from the repo), by ID or by alias', async () => {
    await symlink(KVVM_FILE, join(dir, `${KVVM_ID}.mjs`))
    assert.deepEqual(await loadVmPlugins(dir, vms), { newVMs: { [KVVM_ID]: ['kvvm'] } })
    assert.equal(vms.get(KVVM_ID)?.version, 'v0.1.0')
    // a file named by a registered alias names the same VM: skipped
    await symlink(KVVM_FILE, join(dir, 'kvvm.mjs'))
    assert.deepEqual(await loadVmPlugins(dir, vms), { newVMs: {} })
  })

  it('reports each module that does not load or does not implement the interface, and loads the rest', async () => {
    const cases: [string, string, string][] = [
      ['throws', 'throw new Error("boom in /very/secret/place/x.mjs")', PluginFailure.importFailed('boom in x.mjs')],
      ['nodefault', 'export const x = 1', PluginFailure.noDefaultExport],
      ['nocreate', 'export default { version: "v1" }', PluginFailure.noCreateVM],
      ['noversion', 'export default { createVM() {} }', PluginFailure.noVersion],
      ['badaliases', 'export default { version: "v1", aliases: "x", createVM() {} }', PluginFailure.badAliases],
      [
        'createthrows',
        'export default { version: "v1", createVM() { throw new Error("nope") } }',
        'createVM() failed: nope',
      ],
      ['notobject', 'export default { version: "v1", createVM: () => 42 }', 'createVM() did not return an object'],
      [
        'missing',
        'export default { version: "v1", createVM: () => ({ initialize() {}, getBlock() {} }) }',
        'the VM has no buildBlock, parseBlock, setPreference, lastAccepted, acceptedIdAt, hasPending, health, createHandlers, shutdown methods',
      ],
      ['onemissing', vmModule('v1', []).replace('shutdown: noop,', ''), 'the VM has no shutdown method'],
      ['nopending', vmModule('v1', []).replace(/pending\$: .*\n/, ''), 'the VM has no pending$ Observable'],
      ['takenalias', vmModule('v1', ['evm']), `alias "evm" already names VM ${EVM_ID}`],
    ]
    for (const [name, text] of cases) await write(`${idOf(name)}.mjs`, text)
    const good = idOf('stillgood')
    // a .js file is CommonJS unless a package.json says otherwise: import() gives its module.exports as default
    await write(`${good}.js`, vmModule('v2.0.0', []).replace('export default', 'module.exports ='))
    const result = await loadVmPlugins(dir, vms)
    assert.deepEqual(result.newVMs, { [good]: [] })
    assert.deepEqual(result.failedVMs, Object.fromEntries(cases.map(([name, , reason]) => [idOf(name), reason])))
    for (const [name] of cases) assert.equal(vms.has(idOf(name)), false, `${name} is not registered`)
  })

  it('a module that does not parse reports the syntax error', async () => {
    const id = idOf('syntax')
    await write(`${id}.mjs`, 'export default {')
    const { failedVMs } = await loadVmPlugins(dir, vms)
    assert.match(failedVMs?.[id] ?? '', /^plugin failed to load: Unexpected end of input/)
  })

  it('a module that takes too long fails at its deadline', async () => {
    const id = idOf('slow')
    await write(`${id}.mjs`, 'await new Promise(() => {})\nexport default {}')
    assert.deepEqual(await loadVmPlugins(dir, vms, { timeoutMs: 100 }), {
      newVMs: {},
      failedVMs: { [id]: PluginFailure.timeout(100) },
    })
    assert.equal(PluginFailure.timeout(100), 'plugin did not load within 100 ms')
  })

  it('two files for one VM, and a file that is not a JavaScript module, fail', async () => {
    const twice = idOf('twice')
    const binary = idOf('binary')
    await write(`${twice}.js`, vmModule('v1', []))
    await write(`${twice}.mjs`, vmModule('v1', []))
    await write(binary, '\x7fELF')
    assert.deepEqual(await loadVmPlugins(dir, vms), {
      newVMs: {},
      failedVMs: {
        [twice]: `more than one plugin file names this VM: ${twice}.js, ${twice}.mjs`,
        [binary]: 'not a JavaScript module (.js or .mjs)',
      },
    })
  })

  it('a name that is neither an alias nor a CB58 ID fails the whole scan, as the reference does', async () => {
    const id = idOf('wouldload')
    await write(`${id}.mjs`, vmModule('v1', []))
    await write('not-an-id.mjs', vmModule('v1', []))
    await assert.rejects(loadVmPlugins(dir, vms), (err: unknown) => {
      assert.ok(err instanceof FirnError)
      assert.equal(err.message, 'invalid vmID: "not-an-id"')
      return true
    })
    assert.equal(vms.has(id), false, 'nothing of a failed scan is registered')
  })

  it('a directory that cannot be read fails without its path', { skip: process.getuid?.() === 0 }, async () => {
    await chmod(dir, 0o000)
    try {
      await assert.rejects(loadVmPlugins(dir, vms), {
        message: "couldn't read the plugin directory: EACCES: permission denied",
      })
    } finally {
      await chmod(dir, 0o755)
    }
  })

  it('a plugin path that cannot be read as a directory fails without the path', async () => {
    const loop = join(dir, 'loop')
    await symlink(loop, loop) // a link to itself: ELOOP, for root too
    await assert.rejects(loadVmPlugins(loop, vms), (err: unknown) => {
      assert.ok(err instanceof FirnError)
      assert.equal(err.message, "couldn't read the plugin directory: ELOOP: too many symbolic links encountered")
      return true
    })
  })

  it('hidePaths keeps file names only', () => {
    assert.equal(
      hidePaths("Cannot find package 'rxjs' imported from /home/me/.firn/plugins/x.mjs"),
      "Cannot find package 'rxjs' imported from x.mjs",
    )
    assert.equal(hidePaths('at file:///a/b/c.mjs?load=12:3'), 'at c.mjs')
    assert.equal(hidePaths('1/2 and a/b stay'), '1/2 and a/b stay')
  })
})
