/**
 * Opcode facts the tracers print the way geth (libevm 1.13) does: names (0x44 is DIFFICULTY, undefined bytes are
 * `opcode 0xc not defined`), the stack items each op reads, and geth's texts for ethereumjs' EVM errors.
 */

const NAMED: Record<number, string> = {
  0: 'STOP',
  1: 'ADD',
  2: 'MUL',
  3: 'SUB',
  4: 'DIV',
  5: 'SDIV',
  6: 'MOD',
  7: 'SMOD',
  8: 'ADDMOD',
  9: 'MULMOD',
  10: 'EXP',
  11: 'SIGNEXTEND',
  16: 'LT',
  17: 'GT',
  18: 'SLT',
  19: 'SGT',
  20: 'EQ',
  21: 'ISZERO',
  22: 'AND',
  23: 'OR',
  24: 'XOR',
  25: 'NOT',
  26: 'BYTE',
  27: 'SHL',
  28: 'SHR',
  29: 'SAR',
  32: 'KECCAK256',
  48: 'ADDRESS',
  49: 'BALANCE',
  50: 'ORIGIN',
  51: 'CALLER',
  52: 'CALLVALUE',
  53: 'CALLDATALOAD',
  54: 'CALLDATASIZE',
  55: 'CALLDATACOPY',
  56: 'CODESIZE',
  57: 'CODECOPY',
  58: 'GASPRICE',
  59: 'EXTCODESIZE',
  60: 'EXTCODECOPY',
  61: 'RETURNDATASIZE',
  62: 'RETURNDATACOPY',
  63: 'EXTCODEHASH',
  64: 'BLOCKHASH',
  65: 'COINBASE',
  66: 'TIMESTAMP',
  67: 'NUMBER',
  68: 'DIFFICULTY',
  69: 'GASLIMIT',
  70: 'CHAINID',
  71: 'SELFBALANCE',
  72: 'BASEFEE',
  73: 'BLOBHASH',
  74: 'BLOBBASEFEE',
  80: 'POP',
  81: 'MLOAD',
  82: 'MSTORE',
  83: 'MSTORE8',
  84: 'SLOAD',
  85: 'SSTORE',
  86: 'JUMP',
  87: 'JUMPI',
  88: 'PC',
  89: 'MSIZE',
  90: 'GAS',
  91: 'JUMPDEST',
  92: 'TLOAD',
  93: 'TSTORE',
  94: 'MCOPY',
  95: 'PUSH0',
  240: 'CREATE',
  241: 'CALL',
  242: 'CALLCODE',
  243: 'RETURN',
  244: 'DELEGATECALL',
  245: 'CREATE2',
  250: 'STATICCALL',
  253: 'REVERT',
  254: 'INVALID',
  255: 'SELFDESTRUCT',
}

/** Stack items read, for the ops whose count is not 0 and not implied by a range below. */
const INPUTS: Record<number, number> = {
  8: 3,
  9: 3,
  21: 1,
  25: 1,
  49: 1,
  53: 1,
  55: 3,
  57: 3,
  59: 1,
  60: 4,
  62: 3,
  63: 1,
  64: 1,
  73: 1,
  80: 1,
  81: 1,
  82: 2,
  83: 2,
  84: 1,
  85: 2,
  86: 1,
  87: 2,
  92: 1,
  93: 2,
  94: 3,
  240: 3,
  241: 7,
  242: 7,
  243: 2,
  244: 6,
  245: 4,
  250: 6,
  253: 2,
  255: 1,
}

export const Op = {
  SLOAD: 0x54,
  SSTORE: 0x55,
  LOG0: 0xa0,
  LOG4: 0xa4,
  CREATE: 0xf0,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  CREATE2: 0xf5,
  STATICCALL: 0xfa,
  SELFDESTRUCT: 0xff,
  BALANCE: 0x31,
  EXTCODESIZE: 0x3b,
  EXTCODECOPY: 0x3c,
  EXTCODEHASH: 0x3f,
} as const

/** geth's OpCode.String(). */
export function opName(op: number): string {
  const named = NAMED[op]
  if (named !== undefined) return named
  if (op >= 0x60 && op <= 0x7f) return `PUSH${op - 0x5f}`
  if (op >= 0x80 && op <= 0x8f) return `DUP${op - 0x7f}`
  if (op >= 0x90 && op <= 0x9f) return `SWAP${op - 0x8f}`
  if (op >= 0xa0 && op <= 0xa4) return `LOG${op - 0xa0}`
  return `opcode 0x${op.toString(16)} not defined`
}

/** Stack items `op` reads (geth's minStack). */
export function stackInputs(op: number): number {
  const n = INPUTS[op]
  if (n !== undefined) return n
  if ((op >= 0x01 && op <= 0x07) || op === 0x0a || op === 0x0b || (op >= 0x10 && op <= 0x1d) || op === 0x20) return 2
  if (op >= 0x80 && op <= 0x8f) return op - 0x7f
  if (op >= 0x90 && op <= 0x9f) return op - 0x8f + 1
  if (op >= 0xa0 && op <= 0xa4) return op - 0xa0 + 2
  return 0
}

export const isCallOp = (op: number): boolean =>
  op === Op.CALL || op === Op.CALLCODE || op === Op.DELEGATECALL || op === Op.STATICCALL

/** Where the failing op was, for the texts that name it. */
export interface FaultSite {
  op: number
  stackLen: number
}

/** geth's error text for an ethereumjs EVMError message (`revert` -> `execution reverted`, ...). */
export function gethError(ejs: string, site?: FaultSite): string {
  switch (ejs) {
    case 'revert':
      return 'execution reverted'
    case 'code store out of gas':
      return 'contract creation code storage out of gas'
    case 'code size to deposit exceeds maximum code size':
      return 'max code size exceeded'
    case 'stack underflow':
      return site === undefined ? 'stack underflow' : `stack underflow (${site.stackLen} <=> ${stackInputs(site.op)})`
    case 'stack overflow':
      return site === undefined ? 'stack limit reached' : `stack limit reached ${site.stackLen} (1023)`
    case 'invalid JUMP':
      return 'invalid jump destination'
    case 'invalid opcode':
      return site === undefined ? 'invalid opcode' : `invalid opcode: ${opName(site.op)}`
    case 'value out of range':
      return 'return data out of bounds'
    case 'static state change':
      return 'write protection'
    case 'create collision':
      return 'contract address collision'
    case 'insufficient balance':
      return 'insufficient balance for transfer'
    case 'invalid bytecode deployed':
      return 'invalid code: must not begin with 0xef'
    case 'initcode exceeds max initcode size':
      return 'max initcode size exceeded'
    default:
      return ejs
  }
}

/** Errors geth raises before the op runs: its struct log carries them. */
export const isPreExecutionFault = (ejs: string): boolean =>
  ejs === 'out of gas' || ejs === 'stack underflow' || ejs === 'stack overflow'
