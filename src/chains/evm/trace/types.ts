/**
 * The tracer hooks, shaped like geth's EVMLogger (CaptureTxStart/Start/State/Enter/Exit/End/TxEnd) but fed by
 * ethereumjs' EVM events (see session.ts). Depths are geth's: the top call is 1.
 */
import type { StateManagerInterface } from '@ethereumjs/common'

/** The tx (or traced call) about to run; the state is the one before it. */
export interface TxStart {
  from: Uint8Array
  /** call target, or the address a creation deploys to */
  to: Uint8Array
  create: boolean
  input: Uint8Array
  value: bigint
  gasLimit: bigint
  /** the effective gas price */
  gasPrice: bigint
  coinbase: Uint8Array
}

/** A call frame below the top one (geth's CaptureEnter). */
export interface FrameStart {
  /** CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2 or SELFDESTRUCT */
  type: string
  from: Uint8Array
  /** undefined for a creation until it succeeds */
  to: Uint8Array | undefined
  input: Uint8Array
  gas: bigint
  /** undefined for STATICCALL */
  value: bigint | undefined
}

/** How a frame (or the top call) ended (CaptureExit / CaptureEnd). */
export interface FrameEnd {
  output: Uint8Array
  gasUsed: bigint
  /** geth's error text */
  error?: string
  /** the created address of a successful creation */
  created?: Uint8Array
}

/** One op about to run (CaptureState). */
export interface Step {
  pc: number
  op: number
  /** gas before the op */
  gas: bigint
  /** geth's cost: constant + dynamic gas, and for the CALL family the gas passed on */
  cost: bigint
  /** 1 = top call */
  depth: number
  stack: readonly bigint[]
  memory: Uint8Array
  /** the executing contract (storage owner) */
  address: Uint8Array
  refund: bigint
  /** the return data of the frame's last call */
  returnData: Uint8Array
  state: StateManagerInterface
}

export interface TxEnd {
  /** the tx's gas used (intrinsic included) */
  gasUsed: bigint
  output: Uint8Array
  error?: string
}

export interface Tracer {
  txStart?(tx: TxStart, state: StateManagerInterface): Promise<void> | void
  step?(step: Step): Promise<void> | void
  /** the op of the last step failed before running (geth logs the error on that step) */
  stepFault?(error: string): void
  enter?(frame: FrameStart): Promise<void> | void
  exit?(end: FrameEnd): void
  /** the top call ended */
  end?(end: FrameEnd): void
  /** after the tx, with the state after it (fees paid) */
  txEnd?(end: TxEnd, state: StateManagerInterface): Promise<void> | void
  /** the JSON result; throws the reason when tracing was stopped */
  result(): unknown
}

/** geth's tracing Context (TxIndex etc.), for tracers that use it. */
export interface TraceContext {
  blockHash?: Uint8Array
  blockNumber?: bigint
  txIndex?: number
  txHash?: Uint8Array
}
