/**
 * ethereumjs' `EVM.runInterpreter` (@ethereumjs/evm 10.1.3, evm.ts) with its result assembled by `Object.assign`
 * instead of object spreads; `FirnEVM` (evm-tables.ts) runs every message through it.
 *
 * ethereumjs builds each message's result as `{ ...result, runState: { ...runState, ...result, ...env } }`. On
 * Node 20 a spread that follows another spread into one object literal copies property by property through the
 * runtime (~1 us per property here), and the runState, result and env hold ~40: ~30 us of every message, about 3 %
 * of an ERC-20 transfer's whole cost in the node (docs/performance.md, "Fifth round"). `Object.assign` copies the
 * same own enumerable properties in the same order, later ones winning, in ~1.5 us. Everything else is
 * ethereumjs' code as it is: the same reads, the same gas and error handling, its interpreter (as FirnInterpreter,
 * evm-loop.ts, which re-does only the interpreter's loop); a replay of the
 * recorded chain (test/unit/src/chains/evm/exec/replay-recorded.test.ts) and a comparison with ethereumjs' own result
 * for stores, logs, reverts, invalid opcodes and running out of gas (evm-tables.test.ts) check it.
 */
import { type EVM, EVMError, type ExecResult, type Message } from '@ethereumjs/evm'
import { Account, BIGINT_0, createZeroAddress } from '@ethereumjs/util'
import { evmInternal } from './evm-internal.js'
import { FirnInterpreter } from './evm-loop.js'

type InterpreterOpts = { pc?: number; initialLogs?: NonNullable<ExecResult['logs']> }
interface RunOut {
  runState: { gasLeft: bigint; gasRefund: bigint; stateGasSpilled?: bigint }
  exceptionError?: EVMError
}
interface InterpreterLike {
  _env: object
  _result: { selfdestruct?: unknown; createdAddresses?: unknown; returnValue?: Uint8Array; logs?: unknown }
  run(code: Uint8Array | undefined, opts: InterpreterOpts): Promise<RunOut>
}
type InterpreterClass = new (...args: unknown[]) => InterpreterLike

const { defaultBlock } = (await evmInternal('./evm.js')) as { defaultBlock: () => unknown }

/** the fields of the EVM the run reads (protected in ethereumjs' types) */
interface EvmInternals {
  stateManager: EVM['stateManager']
  blockchain: EVM['blockchain']
  journal: unknown
  performanceLogger: unknown
  _optsCached: { profiler?: unknown }
  _tx?: { gasPrice: bigint; origin?: unknown }
  _block?: unknown
}

export async function runInterpreter(evm: EVM, message: Message, opts: InterpreterOpts = {}): Promise<ExecResult> {
  const self = evm as unknown as EvmInternals
  const contract = (await self.stateManager.getAccount(message.to ?? createZeroAddress())) ?? new Account()
  const env = {
    address: message.to ?? createZeroAddress(),
    caller: message.caller ?? createZeroAddress(),
    callData: message.data ?? Uint8Array.from([0]),
    callValue: message.value ?? BIGINT_0,
    code: message.code,
    isStatic: message.isStatic ?? false,
    isCreate: message.isCreate ?? false,
    depth: message.depth ?? 0,
    gasPrice: self._tx!.gasPrice,
    origin: self._tx!.origin ?? message.caller ?? createZeroAddress(),
    block: self._block ?? defaultBlock(),
    contract,
    codeAddress: message.codeAddress,
    gasRefund: message.gasRefund,
    chargeCodeAccesses: message.chargeCodeAccesses,
    blobVersionedHashes: message.blobVersionedHashes ?? [],
    accessWitness: message.accessWitness,
    createdAddresses: message.createdAddresses,
    initialLogs: opts.initialLogs,
  }
  const interpreter = new (FirnInterpreter as unknown as InterpreterClass)(
    evm,
    self.stateManager,
    self.blockchain,
    env,
    message.gasLimit,
    self.journal,
    self.performanceLogger,
    self._optsCached.profiler,
  )
  if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct
  if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses
  const out = await interpreter.run(message.code as Uint8Array | undefined, opts)
  let result: InterpreterLike['_result'] = interpreter._result
  let gasUsed = message.gasLimit - out.runState.gasLeft
  if (out.exceptionError) {
    const error = out.exceptionError.error
    if (error !== EVMError.errorMessages.REVERT && error !== EVMError.errorMessages.INVALID_EOF_FORMAT)
      gasUsed = message.gasLimit
    // the result is cleared on an error
    result = Object.assign({}, result, { logs: [], selfdestruct: new Map(), createdAddresses: new Set() })
  }
  message.accessWitness?.commit()
  return Object.assign({}, result, {
    runState: Object.assign({}, out.runState, result, interpreter._env),
    exceptionError: out.exceptionError,
    gas: out.runState.gasLeft,
    executionGasUsed: gasUsed,
    gasRefund: out.runState.gasRefund,
    stateGasSpilled: out.runState.stateGasSpilled,
    returnValue: result.returnValue ?? new Uint8Array(0),
  }) as unknown as ExecResult
}
