/**
 * geth's call message and state transition (internal/ethapi TransactionArgs.ToMessage, core/state_transition.go
 * as coreth runs it: no nonce/EOA checks, NoBaseFee, no refunds) on top of ethereumjs' `evm.runCall`. Failures
 * before execution throw `MessageError` with geth's texts; EVM failures come back in the result as geth's
 * vm error texts. The state the message runs on is a throw-away view: nothing here is ever committed.
 */
import type { Block } from '@ethereumjs/block'
import type { InterpreterStep } from '@ethereumjs/evm'
import { Account, Address, bytesToHex } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { checksum } from '../txpool/entry.js'
import type { TxArgs } from './hexutil.js'

export const TX_GAS = 21_000n
const TX_GAS_CREATE = 53_000n
const TX_DATA_ZERO_GAS = 4n
const TX_DATA_NONZERO_GAS = 16n
const ACCESS_LIST_ADDRESS_GAS = 2_400n
const ACCESS_LIST_SLOT_GAS = 1_900n
const INIT_CODE_WORD_GAS = 2n
export const MAX_INIT_CODE_SIZE = 49_152
const UINT256_MAX = (1n << 256n) - 1n

export interface AccessTuple {
  address: Uint8Array
  storageKeys: Uint8Array[]
}

/** core.Message with SkipAccountChecks. */
export interface Message {
  from: Uint8Array
  /** undefined: contract creation */
  to: Uint8Array | undefined
  value: bigint
  gasLimit: bigint
  gasPrice: bigint
  gasFeeCap: bigint
  gasTipCap: bigint
  data: Uint8Array
  accessList: AccessTuple[]
}

/** A failure before execution (geth's consensus errors); `intrinsic` marks `intrinsic gas too low`. */
export class MessageError extends Error {
  constructor(
    message: string,
    readonly intrinsic = false,
  ) {
    super(message)
    this.name = 'MessageError'
  }
}

/** core.ExecutionResult. */
export interface ExecutionResult {
  usedGas: bigint
  returnData: Uint8Array
  /** geth's vm error text; undefined on success */
  err?: string
  /** the error is a REVERT (returnData holds the revert data) */
  reverted: boolean
  /** ethereumjs' own error text, for callers that need details */
  rawErr?: string
}

/** TransactionArgs.ToMessage. */
export function toMessage(args: TxArgs, globalGasCap: bigint, baseFee: bigint | undefined): Message {
  if (args.gasPrice !== undefined && (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined))
    throw new Error('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  let gas = globalGasCap === 0n ? (1n << 64n) / 2n - 1n : globalGasCap
  if (args.gas !== undefined) gas = args.gas
  if (globalGasCap !== 0n && globalGasCap < gas) gas = globalGasCap
  let gasPrice: bigint
  let gasFeeCap: bigint
  let gasTipCap: bigint
  if (baseFee === undefined) {
    gasPrice = args.gasPrice ?? 0n
    gasFeeCap = gasPrice
    gasTipCap = gasPrice
  } else if (args.gasPrice !== undefined) {
    gasPrice = args.gasPrice
    gasFeeCap = gasPrice
    gasTipCap = gasPrice
  } else {
    gasFeeCap = args.maxFeePerGas ?? 0n
    gasTipCap = args.maxPriorityFeePerGas ?? 0n
    gasPrice = 0n
    if (gasFeeCap > 0n || gasTipCap > 0n) {
      const p = gasTipCap + baseFee
      gasPrice = p < gasFeeCap ? p : gasFeeCap
    }
  }
  return {
    from: args.from ?? new Uint8Array(20),
    to: args.to,
    value: args.value ?? 0n,
    gasLimit: gas,
    gasPrice,
    gasFeeCap,
    gasTipCap,
    data: args.data ?? new Uint8Array(0),
    accessList: args.accessList ?? [],
  }
}

/** core.IntrinsicGas under the C chain's current rules (Shanghai/Durango init-code words, no Prague floor). */
export function intrinsicGas(data: Uint8Array, accessList: readonly AccessTuple[], create: boolean): bigint {
  let gas = create ? TX_GAS_CREATE : TX_GAS
  for (const b of data) gas += b === 0 ? TX_DATA_ZERO_GAS : TX_DATA_NONZERO_GAS
  for (const t of accessList) gas += ACCESS_LIST_ADDRESS_GAS + ACCESS_LIST_SLOT_GAS * BigInt(t.storageKeys.length)
  if (create) gas += INIT_CODE_WORD_GAS * BigInt(Math.ceil(data.length / 32))
  return gas
}

export interface ApplyOptions {
  /** the block the message runs in */
  block: Block
  /** eth_call's NoBaseFee: zero fee fields skip the base-fee checks */
  noBaseFee: boolean
  /** called before every opcode (access-list tracing, deadlines); throwing aborts the run */
  onStep?: (step: InterpreterStep) => void
}

const un0x = (b: Uint8Array): string => bytesToHex(b).slice(2)

/** ApplyMessage on `vm` (a fresh VM over a throw-away view). */
export async function applyMessage(vm: VM, msg: Message, opts: ApplyOptions): Promise<ExecutionResult> {
  const sm = vm.stateManager
  const from = new Address(msg.from)
  // the checksummed sender only goes into error texts (a keccak: not on the path of a call that passes)
  const who = () => checksum(from.toString())
  const baseFee = opts.block.header.baseFeePerGas ?? 0n
  // preCheck: fee fields (London is always active on the C chain)
  if (!(opts.noBaseFee && msg.gasFeeCap === 0n && msg.gasTipCap === 0n)) {
    if (msg.gasFeeCap > UINT256_MAX)
      throw new MessageError(
        `max fee per gas higher than 2^256-1: address ${who()}, maxFeePerGas bit length: ${msg.gasFeeCap.toString(2).length}`,
      )
    if (msg.gasTipCap > UINT256_MAX)
      throw new MessageError(
        `max priority fee per gas higher than 2^256-1: address ${who()}, maxPriorityFeePerGas bit length: ${msg.gasTipCap.toString(2).length}`,
      )
    if (msg.gasFeeCap < msg.gasTipCap)
      throw new MessageError(
        `max priority fee per gas higher than max fee per gas: address ${who()}, maxPriorityFeePerGas: ${msg.gasTipCap}, maxFeePerGas: ${msg.gasFeeCap}`,
      )
    if (msg.gasFeeCap < baseFee)
      throw new MessageError(
        `max fee per gas less than block base fee: address ${who()}, maxFeePerGas: ${msg.gasFeeCap}, baseFee: ${baseFee}`,
      )
  }
  // buyGas
  const balanceCheck = msg.gasLimit * msg.gasFeeCap + msg.value
  if (balanceCheck > UINT256_MAX)
    throw new MessageError(
      `insufficient funds for gas * price + value: address ${who()} required balance exceeds 256 bits`,
    )
  const account = (await sm.getAccount(from)) ?? new Account()
  if (account.balance < balanceCheck)
    throw new MessageError(
      `insufficient funds for gas * price + value: address ${who()} have ${account.balance} want ${balanceCheck}`,
    )
  account.balance -= msg.gasLimit * msg.gasPrice
  await sm.putAccount(from, account)
  // intrinsic gas, value transfer, init code size
  const create = msg.to === undefined
  const intrinsic = intrinsicGas(msg.data, msg.accessList, create)
  if (msg.gasLimit < intrinsic)
    throw new MessageError(`intrinsic gas too low: have ${msg.gasLimit}, want ${intrinsic}`, true)
  if (msg.value > 0n && account.balance < msg.value)
    throw new MessageError(`insufficient funds for transfer: address ${who()}`)
  if (create && msg.data.length > MAX_INIT_CODE_SIZE)
    throw new MessageError(`max initcode size exceeded: code size ${msg.data.length} limit ${MAX_INIT_CODE_SIZE}`)
  // StateDB.Prepare: warm sender, recipient, precompiles, coinbase and the access list
  const journal = vm.evm.journal
  for (const address of vm.evm.precompiles.keys()) journal.addAlwaysWarmAddress(address)
  journal.addAlwaysWarmAddress(un0x(msg.from))
  if (msg.to !== undefined) journal.addAlwaysWarmAddress(un0x(msg.to))
  journal.addAlwaysWarmAddress(un0x(opts.block.header.coinbase.bytes))
  for (const t of msg.accessList) {
    journal.addAlwaysWarmAddress(un0x(t.address))
    for (const key of t.storageKeys) journal.addAlwaysWarmSlot(un0x(t.address), un0x(key))
  }
  const events = vm.evm.events
  const onStep = opts.onStep
  if (onStep !== undefined) events?.on('step', onStep)
  try {
    const result = await vm.evm.runCall({
      block: opts.block,
      caller: from,
      origin: from,
      ...(msg.to === undefined ? {} : { to: new Address(msg.to) }),
      data: msg.data,
      value: msg.value,
      gasLimit: msg.gasLimit - intrinsic,
      gasPrice: msg.gasPrice,
    })
    const exec = result.execResult
    const raw = exec.exceptionError?.error
    return {
      usedGas: intrinsic + exec.executionGasUsed,
      returnData: raw === undefined || raw === 'revert' ? exec.returnValue : new Uint8Array(0),
      reverted: raw === 'revert',
      ...(raw === undefined ? {} : { err: gethVmError(raw), rawErr: raw }),
    }
  } finally {
    if (onStep !== undefined) events?.off('step', onStep)
  }
}

/** ethereumjs' EVM error texts -> geth's core/vm errors. */
export function gethVmError(raw: string): string {
  if (raw.startsWith('invalid JUMP')) return 'invalid jump destination'
  switch (raw) {
    case 'revert':
      return 'execution reverted'
    case 'out of gas':
      return 'out of gas'
    case 'code store out of gas':
      return 'contract creation code storage out of gas'
    case 'code size to deposit exceeds maximum code size':
      return 'max code size exceeded'
    case 'static state change':
      return 'write protection'
    case 'value out of range':
      return 'return data out of bounds'
    case 'create collision':
      return 'contract address collision'
    case 'insufficient balance':
      return 'insufficient balance for transfer'
    case 'invalid bytecode deployed':
      return 'invalid code: must not begin with 0xef'
    case 'initcode exceeds max initcode size':
      return 'max initcode size exceeded'
    case 'invalid opcode':
      return 'invalid opcode'
    default:
      return raw
  }
}

/** geth's OpCode.String() for opcodes the Cancun table lacks (the only ones an `invalid opcode` names). */
export function invalidOpcodeText(op: number): string {
  return op === 0xfe ? 'invalid opcode: INVALID' : `invalid opcode: opcode 0x${op.toString(16)} not defined`
}

/** Inputs an opcode pops (geth's minStack), for `stack underflow (<have> <=> <need>)`. */
export function stackInputs(op: number): number | undefined {
  if (op >= 0x60 && op <= 0x7f) return 0
  if (op >= 0x80 && op <= 0x8f) return op - 0x7f
  if (op >= 0x90 && op <= 0x9f) return op - 0x8e
  if (op >= 0xa0 && op <= 0xa4) return op - 0xa0 + 2
  return STACK_INPUTS.get(op)
}

const STACK_INPUTS = new Map<number, number>(
  Object.entries({
    0: [
      0x00, 0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x4a,
    ].concat([0x58, 0x59, 0x5a, 0x5b, 0x5f]),
    1: [0x15, 0x19, 0x31, 0x35, 0x3b, 0x3f, 0x40, 0x49, 0x50, 0x51, 0x54, 0x56, 0x5c, 0xff],
    2: [
      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1a,
    ].concat([0x1b, 0x1c, 0x1d, 0x20, 0x52, 0x53, 0x55, 0x57, 0x5d, 0xf3, 0xfd]),
    3: [0x08, 0x09, 0x37, 0x39, 0x3e, 0x5e, 0xf0],
    4: [0x3c, 0xf5],
    6: [0xf4, 0xfa],
    7: [0xf1, 0xf2],
  }).flatMap(([n, ops]) => ops.map((op): [number, number] => [op, Number(n)])),
)
