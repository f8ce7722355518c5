/**
 * The execution side of the C chain's `eth` namespace (coreth internal/ethapi): eth_call, eth_estimateGas,
 * eth_createAccessList, eth_callDetailed and eth_sendRawTransaction, with geth's argument handling and texts.
 *
 * Calls run geth's state transition (exec-message.ts) on ethereumjs' EVM over a throw-away view of the block's
 * state; the EVM timeout (`rpc-evm-timeout`, 5 s, or a shorter `api-max-duration`; coreth has only the latter,
 * unlimited by default) bounds call, estimateGas and createAccessList, and the request's abort signal (the client
 * hung up, the request deadline) stops them too. Differences from coreth, mostly from ethereumjs:
 * - vm error texts are mapped to geth's (`out of gas`, `invalid jump destination`, `write protection`, ...);
 *   `invalid opcode: <name>` and `stack underflow (<have> <=> <need>)` are found by running the call again with a
 *   tracer; `stack limit reached` is reported as `stack overflow`, without the numbers.
 * - an EVM run stops at its next jump or message (src/chains/evm/exec/call-guard.ts), and yields to the event
 *   loop every few ms of execution.
 * - estimateGas stops on the deadline with `execution aborted (timeout = <d>)` (geth's estimator has no timeout).
 * - the BlobBaseFee block override is accepted and ignored (no blobs on the C chain).
 * - createAccessList lists addresses in first-touch order (geth: map order).
 */
import { Address, bytesToHex } from '@ethereumjs/util'
import { checkArity } from '../../../rpc/eth-args.js'
import type { CallContext, EthMethod } from '../../../rpc/eth-types.js'
import { evmCallTimeoutMs } from '../config.js'
import { SliceLane } from '../exec/call-guard.js'
import { recoverAhead } from '../exec/recover-ahead.js'
import { presetSender } from '../exec/tx-sender.js'
import { GasPriceOracle } from '../gasprice/oracle.js'
import { checkReplayProtection } from '../txpool/validate.js'
import type { EthBackend, ResolvedBlock, SubmitTransaction } from './backend.js'
import { callResults } from './call-results.js'
import { createAccessList } from './exec-access-list.js'
import { estimateGas } from './exec-estimate.js'
import {
  type ExecutionResult,
  invalidOpcodeText,
  type Message,
  MessageError,
  stackInputs,
  toMessage,
} from './exec-message.js'
import {
  type BlockOverrides,
  parseBlockOverrides,
  parseStateOverrides,
  type StateOverrides,
  withBlockOverrides,
} from './exec-overrides.js'
import { decodeRawTransaction } from './exec-rawtx.js'
import { revertError, revertMessage } from './exec-revert.js'
import { CallRunner, callTarget, targetOf } from './exec-runner.js'
import {
  type BlockSelector,
  hex,
  parseBlockNumberOrHash,
  parseBytes,
  parseTxArgs,
  qty,
  type TxArgs,
} from './hexutil.js'
import { checkTxFee } from './tx-args.js'

const LATEST: BlockSelector = { kind: 'tag', tag: 'latest' }
const MAX_UINT64_HALF = (1n << 64n) / 2n - 1n

/**
 * What the methods need beyond the backend: the tip suggestion for createAccessList's fee defaults, and the tx
 * admission eth_sendRawTransaction ends in (the backend's own unless given).
 */
export interface ExecOptions {
  suggestTip?: () => Promise<bigint>
  submitTransaction?: SubmitTransaction
  /** the lane the chain's guarded EVM runs take turns in (one per chain; a lane of its own when absent) */
  lane?: SliceLane
}

/** TransactionArgs: null is Go's zero value (a creation with no data); absent is left to checkArity. */
const txArgs = (v: unknown): TxArgs => (v === null || v === undefined ? {} : parseTxArgs(v, 0))
const optionalBlock = (v: unknown, i: number): BlockSelector =>
  v === undefined || v === null ? LATEST : parseBlockNumberOrHash(v, i)

export function execMethods(backend: EthBackend, opts: ExecOptions = {}): Array<[string, EthMethod]> {
  const gasCap = (): bigint => BigInt(backend.config.rpcGasCap)
  const lane = opts.lane ?? new SliceLane()
  const results = callResults(backend.core)
  const limits = (ctx: CallContext) => ({ timeoutMs: evmCallTimeoutMs(backend.config), signal: ctx.signal, lane })
  const submitTransaction = opts.submitTransaction ?? ((tx) => backend.submitTransaction(tx))
  let oracle: GasPriceOracle | undefined
  const suggestTip =
    opts.suggestTip ??
    (() => {
      oracle ??= new GasPriceOracle(backend)
      return oracle.suggestTip()
    })

  /** A runner whose failure details (invalid opcode, stack underflow) come from one traced re-run. */
  async function detail(runner: CallRunner, msg: Message, res: ExecutionResult): Promise<ExecutionResult> {
    if (res.rawErr !== 'invalid opcode' && res.rawErr !== 'stack underflow') return res
    let last: { pc: number; depth: number; height: number } | undefined
    await runner.run(msg, (s) => {
      last = { pc: s.pc, depth: s.depth, height: s.stack.length }
    })
    // the top frame failed: its code is the recipient's, or the init code of a creation
    if (last === undefined || last.depth !== 0) return res
    const code = msg.to === undefined ? msg.data : await (await runner.open()).getCode(new Address(msg.to))
    const op = code[last.pc] ?? 0
    if (res.rawErr === 'invalid opcode') return { ...res, err: invalidOpcodeText(op) }
    const need = stackInputs(op)
    return need === undefined ? res : { ...res, err: `stack underflow (${last.height} <=> ${need})` }
  }

  /** DoCall: the result, or geth's error for anything before execution. */
  async function doCall(
    args: TxArgs,
    sel: BlockSelector,
    state: StateOverrides | undefined,
    block: BlockOverrides | undefined,
    ctx: CallContext,
    resolved?: ResolvedBlock | null,
  ): Promise<ExecutionResult> {
    const target =
      resolved === undefined ? await callTarget(backend, sel, true) : targetOf(backend, resolved, sel, true)
    const env = withBlockOverrides(target.env, block)
    const runner = new CallRunner(backend, target.root, env, state, limits(ctx))
    await runner.open()
    const msg = toMessage(args, gasCap(), env.baseFee)
    try {
      return await detail(runner, msg, await runner.run(msg))
    } catch (err) {
      if (err instanceof MessageError) throw new Error(`err: ${err.message} (supplied gas ${msg.gasLimit})`)
      throw err
    }
  }

  /**
   * doCall, answered from the chain's kept outcomes when the same call ran at the same accepted block
   * (call-results.ts: what is kept and why it is exact).
   */
  async function cachedCall(
    raw: unknown,
    args: TxArgs,
    sel: BlockSelector,
    state: StateOverrides | undefined,
    block: BlockOverrides | undefined,
    ctx: CallContext,
  ): Promise<ExecutionResult> {
    if (state !== undefined || block !== undefined || (sel.kind === 'tag' && sel.tag === 'pending'))
      return doCall(args, sel, state, block, ctx)
    const resolved = backend.blockNow(sel) ?? (await backend.resolveBlock(sel))
    const key =
      resolved?.accepted === true ? results.key(resolved.hash, gasCap(), JSON.stringify(raw ?? null)) : undefined
    if (key === undefined) return doCall(args, sel, state, block, ctx, resolved)
    const kept = results.get(key)
    if (kept !== undefined) return kept
    const res = await doCall(args, sel, state, block, ctx, resolved)
    results.put(key, res)
    return res
  }

  const ethCall: EthMethod = async (params, ctx) => {
    const args = txArgs(params[0])
    const sel = optionalBlock(params[1], 1)
    const state = parseStateOverrides(params[2], 2)
    const block = parseBlockOverrides(params[3], 3)
    checkArity(params, 1, 4)
    const res = await cachedCall(params[0], args, sel, state, block, ctx)
    if (res.reverted && res.returnData.length > 0) throw revertError(res.returnData)
    if (res.err !== undefined) throw new Error(res.err)
    return hex(res.returnData)
  }

  const callDetailed: EthMethod = async (params, ctx) => {
    const args = txArgs(params[0])
    // a required rpc.BlockNumberOrHash: null decodes to neither a number nor a hash
    if (params[1] === null) throw new Error('invalid arguments; neither block nor hash specified')
    const sel = optionalBlock(params[1], 1)
    const state = parseStateOverrides(params[2], 2)
    checkArity(params, 2, 3)
    const res = await doCall(args, sel, state, undefined, ctx)
    let errCode = 0
    let err = res.err ?? ''
    if (res.reverted && res.returnData.length > 0) {
      errCode = 3
      err = revertMessage(res.returnData)
    }
    return { gas: Number(res.usedGas), errCode, err, returnData: hex(res.returnData) }
  }

  const ethEstimateGas: EthMethod = async (params, ctx) => {
    const args = txArgs(params[0])
    const sel = optionalBlock(params[1], 1)
    const state = parseStateOverrides(params[2], 2)
    checkArity(params, 1, 3)
    const target = await callTarget(backend, sel, false)
    const runner = new CallRunner(backend, target.root, target.env, state, limits(ctx))
    await runner.open()
    const call = toMessage({ ...args, gas: args.gas ?? target.env.gasLimit }, gasCap(), target.env.baseFee)
    return qty(await estimateGas(runner, call, target.env.gasLimit, gasCap()))
  }

  const ethCreateAccessList: EthMethod = async (params, ctx) => {
    const args = txArgs(params[0])
    const sel = optionalBlock(params[1], 1)
    checkArity(params, 1, 2)
    const target = await callTarget(backend, sel, false)
    const filled = await setDefaults(args)
    const runner = new CallRunner(backend, target.root, target.env, undefined, limits(ctx))
    const baseFee = target.env.baseFee
    const withList = (accessList: TxArgs['accessList']) =>
      toMessage({ ...filled.args, ...(accessList === undefined ? {} : { accessList }) }, gasCap(), baseFee)
    const msg = withList(filled.args.accessList)
    return createAccessList(
      runner,
      { msg, nonce: filled.nonce, chainId: filled.chainId, gasPrice: filled.args.gasPrice },
      (list) => withList(list),
    )
  }

  /** TransactionArgs.setDefaults(skipGasEstimation = true). */
  async function setDefaults(a: TxArgs): Promise<{ args: TxArgs; nonce: bigint; chainId: bigint }> {
    const args = { ...a }
    if (args.gasPrice !== undefined && (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined))
      throw new Error('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
    const eip1559Set = args.maxFeePerGas !== undefined && args.maxPriorityFeePerGas !== undefined
    if (args.gasPrice === undefined && eip1559Set) {
      if (args.maxFeePerGas === 0n) throw new Error('maxFeePerGas must be non-zero')
      checkFeeOrder(args.maxFeePerGas!, args.maxPriorityFeePerGas!)
    } else if (args.gasPrice !== undefined) {
      if (args.gasPrice === 0n) throw new Error('gasPrice must be non-zero after london fork')
    } else {
      args.maxPriorityFeePerGas ??= await suggestTip()
      args.maxFeePerGas ??= args.maxPriorityFeePerGas + 2n * (backend.latest().header.baseFee ?? 0n)
      checkFeeOrder(args.maxFeePerGas, args.maxPriorityFeePerGas)
    }
    args.value ??= 0n
    const nonce = args.nonce ?? (await backend.pool.nonce(bytesToHex(args.from ?? new Uint8Array(20))))
    args.nonce = nonce
    if (args.to === undefined && (args.data?.length ?? 0) === 0)
      throw new Error('contract creation without any data provided')
    args.gas ??= gasCap() === 0n ? MAX_UINT64_HALF : gasCap()
    if (args.chainId !== undefined && args.chainId !== backend.chainId)
      throw new Error(`chainId does not match node's (have=${args.chainId}, want=${backend.chainId})`)
    return { args, nonce, chainId: backend.chainId }
  }

  const sendRawTransaction: EthMethod = async (params) => {
    const raw = parseBytes(params[0], 0)
    checkArity(params, 1, 1)
    const tx = decodeRawTransaction(raw, backend.core.common)
    // the sender recovered on a worker thread meanwhile: the pool's recovery is then a cache lookup
    const ahead = recoverAhead(tx, backend.core.common)
    const price = 'maxFeePerGas' in tx ? tx.maxFeePerGas : tx.gasPrice
    checkTxFee(price, tx.gasLimit, backend.config.rpcTxFeeCap)
    checkReplayProtection(tx, {
      allowUnprotectedTxs: backend.config.allowUnprotectedTxs,
      allowUnprotectedTxHashes: backend.config.allowUnprotectedTxHashes ?? [],
    })
    const sender = await ahead
    if (sender !== undefined) presetSender(tx, sender)
    await submitTransaction(tx)
    return hex(tx.hash())
  }

  return [
    ['eth_call', ethCall],
    ['eth_estimateGas', ethEstimateGas],
    ['eth_createAccessList', ethCreateAccessList],
    ['eth_callDetailed', callDetailed],
    ['eth_sendRawTransaction', sendRawTransaction],
  ]
}

/** `maxFeePerGas (0x..) < maxPriorityFeePerGas (0x..)` (hexutil.Big prints as hex). */
function checkFeeOrder(maxFee: bigint, maxTip: bigint): void {
  if (maxFee < maxTip) throw new Error(`maxFeePerGas (${qty(maxFee)}) < maxPriorityFeePerGas (${qty(maxTip)})`)
}
