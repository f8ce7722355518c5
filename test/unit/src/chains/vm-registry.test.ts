import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { firstValueFrom } from 'rxjs'
import { registerBuiltinVms } from '../../../../src/chains/builtin-vms.js'
import { evmVmFactory } from '../../../../src/chains/evm/chain-vm.js'
import type { VmFactory } from '../../../../src/chains/vm.js'
import { EVM_ID, type VmEntry, VmRegistry } from '../../../../src/chains/vm-registry.js'
import { idFromAscii, idToString } from '../../../../src/identity/ids.js'

const factory = (version: string): VmFactory => ({
  version,
  createVM: () => {
    throw new Error('not made in this test')
  },
})
const idOf = (name: string) => idToString(idFromAscii(name))

describe('VmRegistry', () => {
  it('registers the built-in EVM under its reference ID and alias, with its factory', () => {
    const vms = new VmRegistry()
    const evm = evmVmFactory()
    registerBuiltinVms(vms, { evm })
    assert.equal(EVM_ID, 'mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6')
    assert.equal(vms.get(EVM_ID)?.factory, evm)
    assert.deepEqual(vms.aliases(EVM_ID), ['evm', EVM_ID])
    assert.equal(vms.primaryAlias(EVM_ID), 'evm')
    assert.equal(vms.resolveAlias('evm'), EVM_ID)
    assert.match(evm.version, /^v\d+\.\d+\.\d+/)
  })

  it('a VM without aliases has its ID string as its primary alias', () => {
    const vms = new VmRegistry()
    const id = idOf('bare')
    vms.register({ id, aliases: [], version: 'v1.0.0', factory: factory('v1.0.0') })
    assert.deepEqual(vms.aliases(id), [id])
    assert.equal(vms.primaryAlias(id), id)
  })

  it('aliases added before a VM registers come first (as --vm-aliases-file entries do)', () => {
    const vms = new VmRegistry()
    const id = idOf('early')
    assert.equal(vms.addAlias(id, 'first'), true)
    vms.register({ id, aliases: ['second'], version: 'v1', factory: factory('v1') })
    assert.deepEqual(vms.aliases(id), ['first', 'second', id])
    assert.equal(vms.primaryAlias(id), 'first')
    assert.equal(vms.addAlias(id, 'first'), true, 'the same pair again is a no-op')
    assert.equal(vms.addAlias(EVM_ID, 'first'), false, 'an alias names one VM')
  })

  it('refuses a second VM with the same ID, and an alias another VM has', () => {
    const vms = new VmRegistry()
    registerBuiltinVms(vms, { evm: evmVmFactory() })
    assert.throws(() => registerBuiltinVms(vms, { evm: evmVmFactory() }), {
      message: `VM ${EVM_ID} is already registered`,
    })
    const id = idOf('thief')
    assert.throws(() => vms.register({ id, aliases: ['evm'], version: 'v1', factory: factory('v1') }), {
      message: `alias "evm" already names VM ${EVM_ID}`,
    })
    assert.equal(vms.has(id), false)
    assert.equal(vms.aliases(id).length, 0, 'nothing of a refused VM stays')
  })

  it('registered$ replays the VMs registered before, then each new one, once each', () => {
    const vms = new VmRegistry()
    registerBuiltinVms(vms, { evm: evmVmFactory() })
    const seen: string[] = []
    const sub = vms.registered$.subscribe((e: VmEntry) => seen.push(e.id))
    const a = idOf('a')
    vms.register({ id: a, aliases: [], version: 'v1', factory: factory('v1') })
    assert.deepEqual(seen, [EVM_ID, a])
    sub.unsubscribe()
    vms.register({ id: idOf('b'), aliases: [], version: 'v1', factory: factory('v1') })
    assert.deepEqual(seen, [EVM_ID, a])
  })

  it('registration$ waits for the VM a name or an ID names, and answers at once for a registered one', async () => {
    const vms = new VmRegistry()
    registerBuiltinVms(vms, { evm: evmVmFactory() })
    assert.equal((await firstValueFrom(vms.registration$('evm'))).id, EVM_ID)
    assert.equal((await firstValueFrom(vms.registration$(EVM_ID))).id, EVM_ID)
    const id = idOf('kvvm')
    const byAlias = firstValueFrom(vms.registration$('kvvm'))
    const byId = firstValueFrom(vms.registration$(id))
    let done = false
    void byAlias.then(() => {
      done = true
    })
    vms.register({ id: idOf('other'), aliases: ['other'], version: 'v1', factory: factory('v1') })
    await Promise.resolve()
    assert.equal(done, false)
    vms.register({ id, aliases: ['kvvm'], version: 'v1', factory: factory('v1') })
    assert.equal((await byAlias).id, id)
    assert.equal((await byId).id, id)
  })

  it('registered$ sees a VM registered while it replays the earlier ones', () => {
    const vms = new VmRegistry()
    registerBuiltinVms(vms, { evm: evmVmFactory() })
    const late = idOf('late')
    const seen: string[] = []
    vms.registered$.subscribe((e) => {
      seen.push(e.id)
      if (e.id === EVM_ID) vms.register({ id: late, aliases: [], version: 'v1', factory: factory('v1') })
    })
    assert.deepEqual(seen, [EVM_ID, late])
  })
})
