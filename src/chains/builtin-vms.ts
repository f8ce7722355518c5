/**
 * The VMs built into Firn, registered the way plugins are (src/chains/vm-registry.ts): today the EVM, under its
 * reference ID (`evm` zero-padded) and alias `evm`, with its factory (src/chains/evm/chain-vm.ts `evmVmFactory`,
 * which the composition root makes with what it wires into each EVM chain: src/node/evm-host.ts).
 */
import type { VmFactory } from './vm.js'
import { EVM_ID, type VmRegistry } from './vm-registry.js'

export interface BuiltinVmFactories {
  /** makes the EVM of one chain (src/chains/evm/chain-vm.ts) */
  evm: VmFactory
}

export function registerBuiltinVms(vms: VmRegistry, factories: BuiltinVmFactories): void {
  vms.register({ id: EVM_ID, aliases: ['evm'], version: factories.evm.version, factory: factories.evm })
}
