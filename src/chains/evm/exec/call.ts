/**
 * eth_call and eth_estimateGas on a state view: the message runs with vm.evm.runCall on a VM made fresh for the
 * attempt (its writes stay in the view's throw-away layer), with the gas capped by the caller's limit.
 */
import type { Block } from '@ethereumjs/block'
import { Address } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'

export interface CallRequest {
  from?: Uint8Array
  /** undefined: contract creation */
  to?: Uint8Array
  data?: Uint8Array
  value?: bigint
  gas?: bigint
  gasPrice?: bigint
}

export interface CallResult {
  returnValue: Uint8Array
  /** intrinsic + execution gas */
  gasUsed: bigint
  /** ethereumjs' error text: 'revert', 'out of gas', ... */
  error?: string
}

/** A fresh VM over a fresh view of the state the call runs on, and the block it runs in. */
export type CallContext = () => Promise<{ vm: VM; block: Block }>

export function intrinsicGas(req: CallRequest): bigint {
  let gas = 21_000n
  for (const b of req.data ?? []) gas += b === 0 ? 4n : 16n
  if (req.to === undefined) gas += 32_000n + 2n * BigInt(Math.ceil((req.data?.length ?? 0) / 32))
  return gas
}

export async function ethCall(context: CallContext, req: CallRequest, gasCap: bigint): Promise<CallResult> {
  const gas = req.gas === undefined || req.gas > gasCap ? gasCap : req.gas
  const intrinsic = intrinsicGas(req)
  if (gas < intrinsic)
    return {
      returnValue: new Uint8Array(0),
      gasUsed: gas,
      error: `intrinsic gas too low: have ${gas}, want ${intrinsic}`,
    }
  const { vm, block } = await context()
  const caller = new Address(req.from ?? new Uint8Array(20))
  const result = await vm.evm.runCall({
    block,
    caller,
    origin: caller,
    ...(req.to === undefined ? {} : { to: new Address(req.to) }),
    data: req.data ?? new Uint8Array(0),
    value: req.value ?? 0n,
    gasLimit: gas - intrinsic,
    gasPrice: req.gasPrice ?? 0n,
    skipBalance: (req.value ?? 0n) === 0n,
  })
  const exec = result.execResult
  return {
    returnValue: exec.returnValue,
    gasUsed: intrinsic + exec.executionGasUsed,
    ...(exec.exceptionError === undefined ? {} : { error: exec.exceptionError.error }),
  }
}

/** Smallest gas limit with which the call succeeds (binary search, as geth); throws the failure at the cap. */
export async function estimateGas(context: CallContext, req: CallRequest, gasCap: bigint): Promise<bigint> {
  const cap = req.gas === undefined || req.gas > gasCap ? gasCap : req.gas
  const top = await ethCall(context, { ...req, gas: cap }, gasCap)
  if (top.error !== undefined) throw new Error(top.error === 'revert' ? 'execution reverted' : top.error)
  let lo = intrinsicGas(req) - 1n
  let hi = top.gasUsed
  // the gas used is usually enough; check it first
  if ((await ethCall(context, { ...req, gas: hi }, gasCap)).error !== undefined) {
    lo = hi
    hi = cap
  }
  while (lo + 1n < hi) {
    const mid = (lo + hi) / 2n
    if ((await ethCall(context, { ...req, gas: mid }, gasCap)).error === undefined) hi = mid
    else lo = mid
  }
  return hi
}
