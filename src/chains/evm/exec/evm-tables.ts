/**
 * ethereumjs' EVM with its opcode table built once per rule set instead of once per EVM, and its jump analysis
 * done once per contract code instead of once per run.
 *
 * `new EVM()` calls `getOpcodesForHF`, which builds a map of every opcode with its handler and gas handler: about
 * 150 us here, half the cost of an `eth_call` of an ERC-20 balance (Firn makes an EVM per call and per block). The
 * table depends only on the rules (chain id, hardfork, EIPs) and on the custom opcodes, and ethereumjs only reads
 * it, so `FirnEVM` shares one per rule set and custom-opcode list (which must therefore be a shared constant: the
 * call guard's is, call-guard.ts).
 */
import type { Common } from '@ethereumjs/common'
import { EVM, type EVMOpts, type ExecResult, getOpcodesForHF, type Message, NobleBN254 } from '@ethereumjs/evm'
import { remember } from '../../../runtime/bounded-map.js'
import { evmInternal, followsInstalledEvm } from './evm-internal.js'
import { runInterpreter } from './evm-run.js'

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

  /** ethereumjs' own, with its result assembled without object spreads (evm-run.ts), on the release it follows */
  protected override runInterpreter(
    message: Message,
    opts?: Parameters<typeof runInterpreter>[2],
  ): Promise<ExecResult> {
    return followsInstalledEvm ? runInterpreter(this, message, opts) : super.runInterpreter(message, opts)
  }
}

/** `createEVM` of ethereumjs (its BN254 backend) for a FirnEVM; every other option is the caller's */
export const createFirnEVM = (opts: EVMOpts): FirnEVM => new FirnEVM({ ...opts, bn254: new NobleBN254() })

/**
 * The jump analysis of a run's code (ethereumjs' `Interpreter._getValidJumpDestinations`: the JUMPDEST map, the
 * PUSH values and the opcode entry at every byte), kept per code. ethereumjs redoes it at the first jump of every
 * message: ~40 us of an ERC-20 balanceOf eth_call, and again for each ERC-20 transfer. Its result depends only on
 * the code's bytes and the opcode table (the interpreter's `lookupOpInfo`), and the interpreter only reads it, so
 * Firn keeps it by code object (the state's code arrives as the same object from the node cache while it stays
 * there), checked against a copy of the bytes on every hit (a memcmp: a code array that changed is analysed
 * again), per opcode table (guarded or not). The interpreter class is not exported by ethereumjs: it is loaded
 * from the module the package's entry loads, the same module instance.
 */
type Analysis = { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] }
interface InterpreterProto {
  _getValidJumpDestinations(this: { _evm: { _opcodeMap: object } }, code: Uint8Array): Analysis
}
const { Interpreter } = (await evmInternal('./interpreter.js')) as { Interpreter: { prototype: InterpreterProto } }
const analyse = Interpreter.prototype._getValidJumpDestinations
/** code objects analysed, by code object: a copy of its bytes and the analysis per opcode table */
const analysed = new WeakMap<Uint8Array, { bytes: Buffer; byTable: Map<object, Analysis> }>()
/** codes shorter than this are analysed each time (cheaper than the lookup) */
const MIN_CODE = 64

Interpreter.prototype._getValidJumpDestinations = function (code) {
  if (code.length < MIN_CODE) return analyse.call(this, code)
  const table = this._evm._opcodeMap
  let entry = analysed.get(code)
  if (entry === undefined || !entry.bytes.equals(code)) {
    entry = { bytes: Buffer.from(code), byTable: new Map() }
    analysed.set(code, entry)
  }
  return entry.byTable.get(table) ?? remember(entry.byTable, table, analyse.call(this, code), 4)
}

/** whether a code object has its analysis kept (tests) */
export const jumpAnalyses = {
  has: (code: Uint8Array): boolean => analysed.has(code),
}
