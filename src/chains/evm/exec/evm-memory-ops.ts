/**
 * The memory opcodes without promises or hex strings, for the interpreter loop (evm-loop.ts).
 *
 * ethereumjs' dynamic fees are async functions, also those that only compute memory expansion (MLOAD, MSTORE,
 * MSTORE8, KECCAK256, RETURN), so each of those opcodes costs two promises; and MSTORE / MLOAD convert the word
 * through a hex string (`bigIntToBytes`, `bytesToBigInt`). A Solidity ERC-20 transfer runs ~20 of them.
 *
 * - `syncFee`: the same fee computed synchronously, by ethereumjs' own `subMemUsage` and `divCeil` (which also
 *   record the memory's new size, as they do for ethereumjs), for an opcode whose fee function is ethereumjs'
 *   stock one for that opcode (a table with other fee functions keeps ethereumjs' path).
 * - `fastHandler`: MLOAD and MSTORE moving the 32-byte word between the stack and memory through a DataView, for
 *   an opcode whose handler is ethereumjs' stock one. Same stack effect, same memory (ethereumjs' `extend`, which
 *   grows it as it would), same errors (an empty stack throws ethereumjs' STACK_UNDERFLOW from its Stack).
 */
import { evmInternal } from './evm-internal.js'

interface Stack {
  pop(): bigint
  push(value: bigint): void
  peek(num?: number): bigint[]
}
interface Memory {
  _store: Uint8Array
  extend(offset: number, size: number): void
}
export interface MemoryRunState {
  stack: Stack
  memory: Memory
}
type Fee = (runState: MemoryRunState, gas: bigint, common: { param(name: string): bigint }) => bigint
type Handler = (runState: MemoryRunState) => void

const { dynamicGasHandlers } = (await evmInternal('./opcodes/gas.js')) as { dynamicGasHandlers: Map<number, unknown> }
const { handlers } = (await evmInternal('./opcodes/functions.js')) as { handlers: Map<number, unknown> }
const { subMemUsage, divCeil } = (await evmInternal('./opcodes/util.js')) as {
  subMemUsage(runState: MemoryRunState, offset: bigint, length: bigint, common: unknown): bigint
  divCeil(a: bigint, b: bigint): bigint
}

const KECCAK256 = 0x20
const MLOAD = 0x51
const MSTORE = 0x52
const MSTORE8 = 0x53
const RETURN = 0xf3

/** a fee over the memory range the top two stack words give (offset, length) */
const rangeFee: Fee = (rs, gas, common) => {
  const [offset, length] = rs.stack.peek(2) as [bigint, bigint]
  return gas + subMemUsage(rs, offset, length, common)
}
/** a fee over `size` bytes of memory at the offset on top of the stack */
const wordFee =
  (size: bigint): Fee =>
  (rs, gas, common) =>
    gas + subMemUsage(rs, rs.stack.peek()[0]!, size, common)

const fees: [number, Fee][] = [
  [
    KECCAK256,
    (rs, gas, common) => {
      const length = rs.stack.peek(2)[1]!
      return rangeFee(rs, gas, common) + common.param('keccak256WordGas') * divCeil(length, 32n)
    },
  ],
  [MLOAD, wordFee(32n)],
  [MSTORE, wordFee(32n)],
  [MSTORE8, wordFee(1n)],
  [RETURN, rangeFee],
]

/** synchronous fees, by ethereumjs' stock fee function they stand for */
export const syncFee = new Map<unknown, Fee>(fees.map(([op, fee]) => [dynamicGasHandlers.get(op), fee]))

/** a word's bytes on their way between the stack and memory */
const scratch = new Uint8Array(32)
const view = new DataView(scratch.buffer)

function mstore(rs: MemoryRunState): void {
  const offset = Number(rs.stack.pop())
  const word = rs.stack.pop()
  // setBigUint64 keeps the low 64 bits of what it is given
  view.setBigUint64(0, word >> 192n)
  view.setBigUint64(8, word >> 128n)
  view.setBigUint64(16, word >> 64n)
  view.setBigUint64(24, word)
  rs.memory.extend(offset, 32)
  rs.memory._store.set(scratch, offset)
}

function mload(rs: MemoryRunState): void {
  const offset = Number(rs.stack.pop())
  rs.memory.extend(offset, 32)
  scratch.set(rs.memory._store.subarray(offset, offset + 32))
  rs.stack.push(
    (view.getBigUint64(0) << 192n) |
      (view.getBigUint64(8) << 128n) |
      (view.getBigUint64(16) << 64n) |
      view.getBigUint64(24),
  )
}

/** faster handlers, by ethereumjs' stock handler they stand for */
export const fastHandler = new Map<unknown, Handler>([
  [handlers.get(MSTORE), mstore],
  [handlers.get(MLOAD), mload],
])
