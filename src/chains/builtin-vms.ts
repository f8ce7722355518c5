/**
 * The VMs built into Firn, registered the way plugins are (src/chains/vm-registry.ts): today the EVM, under its
 * reference ID (`evm` zero-padded) and alias `evm`, with its factory. The composition root passes the factory in.
 */
import { SEMVER } from '../config/version.js'
import type { VmFactory } from './vm.js'
import { EVM_ID, type VmRegistry } from './vm-registry.js'

export interface BuiltinVmFactories {
  /** makes the EVM of one chain (src/chains/evm/chain-vm.ts) */
  evm: VmFactory
}

export function registerBuiltinVms(vms: VmRegistry, factories: BuiltinVmFactories): void {
  vms.register({ id: EVM_ID, aliases: ['evm'], version: factories.evm.version, factory: factories.evm })
}

/**
 * SEAM (issue 12): stands in for the EVM's real factory until the EVM runs behind the ChainVm interface
 * (src/chains/evm/chain-vm.ts); the composition root swaps it for that factory. It reports the EVM's version
 * (`info.getNodeVersion`'s `vmVersions.evm`) and refuses to create a VM.
 */
export const evmFactoryPlaceholder: VmFactory = {
  version: `v${SEMVER}`,
  aliases: ['evm'],
  createVM() {
    throw new Error('the EVM is not available as a ChainVm yet (src/chains/evm/chain-vm.ts)')
  },
}
