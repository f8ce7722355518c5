/**
 * ethereumjs' EVM with its opcode table built once per rule set instead of once per EVM.
 *
 * `new EVM()` calls `getOpcodesForHF`, which builds a map of every opcode with its handler and gas handler: about
 * 150 us here, half the cost of an `eth_call` of an ERC-20 balance (Firn makes an EVM per call and per block). The
 * table depends only on the rules (chain id, hardfork, EIPs) and on the custom opcodes, and ethereumjs only reads
 * it, so `FirnEVM` shares one per rule set and custom-opcode list (which must therefore be a shared constant: the
 * call guard's is, call-guard.ts).
 */
import type { Common } from '@ethereumjs/common'
import { EVM, type EVMOpts, getOpcodesForHF, NobleBN254 } from '@ethereumjs/evm'

type Table = ReturnType<typeof getOpcodesForHF>
type CustomOpcodes = NonNullable<EVMOpts['customOpcodes']>

const NONE: CustomOpcodes = []
const tables = new WeakMap<CustomOpcodes, Map<string, Table>>()

/** the rules an opcode table depends on */
export const rulesKey = (common: Common): string =>
  `${common.chainId()}|${common.hardfork()}|${common.eips().join(',')}`

/** ethereumjs' opcode table for `common`'s rules with `custom` (one shared, read-only table per pair) */
export function opcodeTable(common: Common, custom: CustomOpcodes | undefined): Table {
  const list = custom ?? NONE
  let byRules = tables.get(list)
  if (byRules === undefined) {
    byRules = new Map()
    tables.set(list, byRules)
  }
  const key = rulesKey(common)
  let table = byRules.get(key)
  if (table === undefined) {
    table = getOpcodesForHF(common, custom)
    byRules.set(key, table)
  }
  return table
}

export class FirnEVM extends EVM {
  /** what ethereumjs' own does, from the shared table (called by the constructor and on hardfork changes) */
  override getActiveOpcodes(): ReturnType<EVM['getActiveOpcodes']> {
    const table = opcodeTable(this.common, this._customOpcodes)
    this._opcodes = table.opcodes
    this._dynamicGasHandlers = table.dynamicGasHandlers
    this._handlers = table.handlers
    this._opcodeMap = table.opcodeMap
    return table.opcodes
  }
}

/** `createEVM` of ethereumjs (its BN254 backend) for a FirnEVM; every other option is the caller's */
export const createFirnEVM = (opts: EVMOpts): FirnEVM => new FirnEVM({ ...opts, bn254: new NobleBN254() })
