/**
 * ethereumjs' interpreter loop (`Interpreter.run` of @ethereumjs/evm 10.1.3, legacy code) without a promise per
 * opcode: an opcode with a fixed fee, or a memory fee (evm-memory-ops.ts), and a synchronous handler runs without
 * an `await`.
 *
 * ethereumjs makes `runStep` an async function and awaits it for every opcode, so each opcode (PUSH, DUP, ADD,
 * JUMP...) allocates a promise and the async function's state, and resumes from the microtask queue: ~180 KB of
 * the ~550 KB an ERC-20 transfer allocates, which the young generation's scavenges then pay for
 * (docs/performance.md, "Sixth round"). Here `run` calls a step that does ethereumjs' work for such an opcode
 * inline: the fee (fixed, or evm-memory-ops.ts `syncFee`), the invalid-opcode check, `useGas`, the program counter,
 * EIP-7928's post-call check, the handler (evm-memory-ops.ts `fastHandler` for MLOAD and MSTORE; awaited only when
 * an async opcode's handler returns a promise), the access witness commit. Every other step is ethereumjs' own
 * `runStep`, awaited: opcodes with another dynamic fee (storage, logs, calls, creates), every opcode
 * while a `step` listener (a tracer) is attached or ethereumjs debugs, and all of a run with the profiler on, EOF
 * (EIP-3540) or code-chunk witnesses (EIP-6800, EIP-7864). The rest of `run` is ethereumjs' as it is: the jump
 * analysis at the first jump, the opcode cache after it, the error handling, EIP-8037's leftover burn.
 *
 * A subclass of ethereumjs' interpreter that FirnEVM's `runInterpreter` (evm-run.ts) builds, only when the installed
 * @ethereumjs/evm is the release this follows (evm-internal.ts); a differential test against stock ethereumjs
 * (evm-tables.test.ts) and the replay of a recorded chain (replay-recorded.test.ts) check it.
 */
import { EVMError } from '@ethereumjs/evm'
import { BIGINT_0, EthereumJSErrorWithoutCode } from '@ethereumjs/util'
import { evmInternal, followsInstalledEvm } from './evm-internal.js'
import { fastHandler, type MemoryRunState, syncFee } from './evm-memory-ops.js'

interface OpInfo {
  feeBigInt: bigint
  dynamicGas: boolean
  isAsync: boolean
  isInvalid: boolean
  code: number
}
interface OpEntry {
  opcodeInfo: OpInfo
  opHandler: (runState: RunState, common: unknown) => unknown
  gasHandler?: unknown
}
interface RunState extends MemoryRunState {
  programCounter: number
  opCode: number
  code: Uint8Array
  gasLeft: bigint
  validJumps: Uint8Array
  cachedPushes: Record<number, bigint>
  shouldDoJumpAnalysis: boolean
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean
  env: { accessWitness?: { commit(): void; revert(): void }; chargeCodeAccesses?: boolean }
}
interface Analysis {
  jumps: Uint8Array
  pushes: Record<number, bigint>
  opcodesCached: OpEntry[]
}
interface InterpreterLike {
  _runState: RunState
  _evm: { DEBUG: boolean; events: { listenerCount(event: string): number } }
  common: { isActivatedEIP(eip: number): boolean; param(name: string): bigint }
  profilerOpts?: { enabled?: boolean }
  lookupOpInfo(op: number): OpEntry
  useGas(amount: bigint, context?: OpInfo): void
  runStep(opcodeObj?: OpEntry): Promise<void>
  _getValidJumpDestinations(code: Uint8Array): Analysis
  run(code: Uint8Array, opts?: { pc?: number }): Promise<{ runState: RunState; exceptionError?: EVMError }>
}

const { Interpreter } = (await evmInternal('./interpreter.js')) as { Interpreter: { prototype: InterpreterLike } }
const { consumeEip7928PostTargetCallOog } = (await evmInternal('./opcodes/EIP7928.js')) as {
  consumeEip7928PostTargetCallOog: (runState: RunState) => void
}
const { EVMErrorTypeString } = (await evmInternal('./errors.js')) as { EVMErrorTypeString: string }

const runStock = Interpreter.prototype.run
const JUMP = 0x56
const JUMPI = 0x57
const JUMPSUB = 0x5e

/**
 * One step: done inline (undefined) when nothing in it has to be awaited; else a promise, ethereumjs' `runStep`'s
 * for a fee this does not compute synchronously.
 */
function step(self: InterpreterLike, opcodeObj: OpEntry | undefined): Promise<void> | undefined {
  const opEntry = opcodeObj ?? self.lookupOpInfo(self._runState.opCode)
  const opInfo = opEntry.opcodeInfo
  if (self._evm.DEBUG || self._evm.events.listenerCount('step') > 0) return self.runStep(opcodeObj)
  let gas = opInfo.feeBigInt
  if (opInfo.dynamicGas) {
    const fee = syncFee.get(opEntry.gasHandler)
    if (fee === undefined) return self.runStep(opcodeObj)
    gas = fee(self._runState, gas, self.common)
  }
  if (opInfo.isInvalid) throw new EVMError(EVMError.errorMessages.INVALID_OPCODE)
  self.useGas(gas, opInfo)
  self._runState.programCounter++
  consumeEip7928PostTargetCallOog(self._runState)
  const handler = fastHandler.get(opEntry.opHandler) ?? opEntry.opHandler
  const done = handler(self._runState, self.common)
  // an async opcode's handler is awaited (ethereumjs marks some synchronous ones async: CALLDATALOAD)
  if (opInfo.isAsync && done instanceof Promise) return done.then(() => self._runState.env.accessWitness?.commit())
  self._runState.env.accessWitness?.commit()
  return undefined
}

/** Whether the run needs a part of ethereumjs' `run` this loop leaves out. */
const needsStock = (self: InterpreterLike): boolean =>
  self.profilerOpts?.enabled === true ||
  self.common.isActivatedEIP(3540) ||
  self.common.isActivatedEIP(6800) ||
  self.common.isActivatedEIP(7864)

async function run(this: InterpreterLike, code: Uint8Array, opts: { pc?: number } = {}) {
  if (needsStock(this)) return runStock.call(this, code, opts)
  const runState = this._runState
  runState.code = code
  runState.programCounter = opts.pc ?? runState.programCounter
  const pc = runState.programCounter
  if (pc !== 0 && (pc < 0 || pc >= runState.code.length)) {
    throw EthereumJSErrorWithoutCode('Internal error: program counter not in range')
  }
  let err: EVMError | undefined
  let cachedOpcodes: OpEntry[] | undefined
  let doJumpAnalysis = true
  while (runState.programCounter < runState.code.length) {
    const programCounter = runState.programCounter
    let opCode: number
    let opCodeObj: OpEntry | undefined
    if (doJumpAnalysis) {
      opCode = runState.code[programCounter]!
      if (opCode === JUMP || opCode === JUMPI || opCode === JUMPSUB) {
        const { jumps, pushes, opcodesCached } = this._getValidJumpDestinations(runState.code)
        runState.validJumps = jumps
        runState.cachedPushes = pushes
        runState.shouldDoJumpAnalysis = false
        cachedOpcodes = opcodesCached
        doJumpAnalysis = false
      }
    } else {
      opCodeObj = cachedOpcodes![programCounter]!
      opCode = opCodeObj.opcodeInfo.code
    }
    runState.opCode = opCode
    try {
      const pending = step(this, opCodeObj)
      if (pending !== undefined) await pending
    } catch (e) {
      runState.env.accessWitness?.revert()
      const error = e as { errorType?: string; error?: string }
      if (!('errorType' in error && error.errorType === EVMErrorTypeString)) throw e
      if (error.error !== EVMError.errorMessages.STOP) err = e as EVMError
      break
    }
  }
  if (
    err === undefined &&
    runState.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true &&
    runState.gasLeft > BIGINT_0
  ) {
    runState.gasLeft = BIGINT_0
    err = new EVMError(EVMError.errorMessages.OUT_OF_GAS)
  }
  return { runState, exceptionError: err }
}

/**
 * ethereumjs' interpreter with the loop above (FirnEVM's messages, evm-run.ts); ethereumjs' own when the installed
 * release is not the one this follows.
 */
export const FirnInterpreter: { prototype: InterpreterLike } = followsInstalledEvm
  ? class extends (Interpreter as unknown as new (...args: unknown[]) => InterpreterLike) {
      override run(code: Uint8Array, opts?: { pc?: number }) {
        return run.call(this, code, opts)
      }
    }
  : Interpreter
