/**
 * eth_estimateGas (eth/gasestimator.Estimate as coreth calls it): the cap from the block gas limit, the sender's
 * funds and the RPC gas cap; 21000 for plain transfers; one run at the cap (its failure is the answer: revert,
 * another vm error, or `gas required exceeds allowance (N)`); then a binary search from the gas used, stopping
 * within 1.5 %.
 */
import { Address } from '@ethereumjs/util'
import { type ExecutionResult, type Message, MessageError, TX_GAS } from './exec-message.js'
import { revertError } from './exec-revert.js'
import type { CallRunner } from './exec-runner.js'

const ERROR_RATIO = 0.015
const CALL_STIPEND = 2_300n
const MAX_UINT64 = (1n << 64n) - 1n

interface Attempt {
  failed: boolean
  result?: ExecutionResult
}

async function execute(runner: CallRunner, call: Message, gas: bigint): Promise<Attempt> {
  try {
    const result = await runner.run({ ...call, gasLimit: gas })
    return { failed: result.err !== undefined, result }
  } catch (err) {
    if (err instanceof MessageError) {
      if (err.intrinsic) return { failed: true }
      throw new Error(`failed with ${gas} gas: ${err.message}`)
    }
    throw err
  }
}

/** `call` is ToMessage(args with gas defaulted to the header's limit); `headerGasLimit` the block's. */
export async function estimateGas(
  runner: CallRunner,
  call: Message,
  headerGasLimit: bigint,
  gasCap: bigint,
): Promise<bigint> {
  let hi = call.gasLimit >= TX_GAS ? call.gasLimit : headerGasLimit
  const state = await runner.open()
  const feeCap = call.gasFeeCap
  if (feeCap !== 0n) {
    const balance = (await state.getAccount(new Address(call.from)))?.balance ?? 0n
    if (call.value >= balance) throw new Error('insufficient funds for transfer')
    const allowance = (balance - call.value) / feeCap
    if (allowance <= MAX_UINT64 && hi > allowance) hi = allowance
  }
  if (gasCap !== 0n && hi > gasCap) hi = gasCap
  if (call.data.length === 0 && call.to !== undefined) {
    const code = await state.getCode(new Address(call.to))
    if (code.length === 0) {
      // errors here are ignored: the run at the cap reports them
      const plain = await execute(runner, call, TX_GAS).catch(() => undefined)
      if (plain !== undefined && !plain.failed) return TX_GAS
    }
  }
  const top = await execute(runner, call, hi)
  if (top.failed) {
    const r = top.result
    if (r?.err !== undefined && r.err !== 'out of gas') {
      if (r.reverted && r.returnData.length > 0) throw revertError(r.returnData)
      throw new Error(r.err)
    }
    throw new Error(`gas required exceeds allowance (${hi})`)
  }
  const used = top.result!.usedGas
  let lo = used - 1n
  const optimistic = ((used + CALL_STIPEND) * 64n) / 63n
  if (optimistic < hi) {
    if ((await execute(runner, call, optimistic)).failed) lo = optimistic
    else hi = optimistic
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < ERROR_RATIO) break
    let mid = (hi + lo) / 2n
    if (mid > lo * 2n) mid = lo * 2n
    if ((await execute(runner, call, mid)).failed) lo = mid
    else hi = mid
  }
  return hi
}
