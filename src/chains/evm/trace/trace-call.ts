/**
 * debug_traceCall's execution: geth's TransactionArgs.ToMessage and ApplyMessage (coreth state_transition.go)
 * with NoBaseFee, on the state after a block and in that block's context. No nonce or EOA check; the gas is
 * capped by rpc-gas-cap; fees are bought and paid (the coinbase gets gasUsed x price, no refunds).
 */
import type { Block } from '@ethereumjs/block'
import type { EVM } from '@ethereumjs/evm'
import { Address, bytesToHex, bytesToUnprefixedHex, toChecksumAddress } from '@ethereumjs/util'
import { envOfHeader } from '../exec/block-fields.js'
import { createAvaVM, executionBlock } from '../exec/block-run.js'
import type { AvaHeader } from '../header.js'
import type { AvaStateManager } from '../state/state-manager.js'
import type { TraceOptions } from './config.js'
import { blockHashes, createdAddress, prepareTracer, type TraceEnv } from './replay.js'
import { TraceSession } from './session.js'

/** The call, as parseTxArgs gives it. */
export interface TraceCallArgs {
  from?: Uint8Array
  to?: Uint8Array
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  value?: bigint
  data?: Uint8Array
  accessList?: { address: Uint8Array; storageKeys: Uint8Array[] }[]
}

const MAX_INIT_CODE_SIZE = 49_152
const checksum = (a: Uint8Array): string => toChecksumAddress(bytesToHex(a))

/** geth's IntrinsicGas (Shanghai rules: initcode words are charged). */
export function intrinsicGas(args: TraceCallArgs): bigint {
  const create = args.to === undefined
  let gas = create ? 53_000n : 21_000n
  const data = args.data ?? new Uint8Array(0)
  for (const b of data) gas += b === 0 ? 4n : 16n
  if (create) gas += 2n * BigInt(Math.ceil(data.length / 32))
  for (const t of args.accessList ?? []) gas += 2400n + 1900n * BigInt(t.storageKeys.length)
  return gas
}

/** Where the call runs: default block `header`'s own context (geth's TraceCall). */
export interface CallBlock {
  header: AvaHeader
  /** the execution block (block overrides applied); default executionBlock of `header` */
  block?: Block
  /** the block whose ancestors BLOCKHASH sees; default header.parentHash */
  parentHash?: Uint8Array
}

/** Trace `args` on `sm` (the state to run on) in `at`'s block context. */
export async function traceCallOn(
  env: TraceEnv,
  sm: AvaStateManager,
  at: CallBlock,
  args: TraceCallArgs,
  gasCap: bigint,
  opts: TraceOptions,
): Promise<unknown> {
  const header = at.header
  if (args.gasPrice !== undefined && (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined))
    throw new Error('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  const from = args.from ?? new Uint8Array(20)
  let gas = gasCap === 0n ? (1n << 63n) - 1n : gasCap
  if (args.gas !== undefined) gas = args.gas
  if (gasCap !== 0n && gasCap < gas) gas = gasCap
  const feeCap = args.gasPrice ?? args.maxFeePerGas ?? 0n
  const tipCap = args.gasPrice ?? args.maxPriorityFeePerGas ?? 0n
  const value = args.value ?? 0n
  const data = args.data ?? new Uint8Array(0)

  const { tracer, deadline } = prepareTracer(opts, env.maxTimeoutMs)
  const vm = await createAvaVM(sm.common, sm, blockHashes(env.core, at.parentHash ?? header.parentHash))
  const block = at.block ?? executionBlock(vm.common, envOfHeader(header))
  const coinbase = block.header.coinbase.bytes
  const baseFee = block.header.baseFeePerGas ?? 0n
  let price = args.gasPrice ?? 0n
  if (args.gasPrice === undefined && (feeCap > 0n || tipCap > 0n))
    price = tipCap + baseFee < feeCap ? tipCap + baseFee : feeCap
  const failed = (why: string) => new Error(`tracing failed: ${why}`)

  // preCheck (NoBaseFee: all-zero fees skip the fee checks) and buyGas
  if (feeCap !== 0n || tipCap !== 0n) {
    if (feeCap < tipCap)
      throw failed(
        `max priority fee per gas higher than max fee per gas: address ${checksum(from)}, maxPriorityFeePerGas: ${tipCap}, maxFeePerGas: ${feeCap}`,
      )
    if (feeCap < baseFee)
      throw failed(
        `max fee per gas less than block base fee: address ${checksum(from)}, maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`,
      )
  }
  const sender = new Address(from)
  const have = (await sm.getAccount(sender))?.balance ?? 0n
  const want = gas * feeCap + value
  if (want >= 1n << 256n)
    throw failed(
      `insufficient funds for gas * price + value: address ${checksum(from)} required balance exceeds 256 bits`,
    )
  if (have < want)
    throw failed(`insufficient funds for gas * price + value: address ${checksum(from)} have ${have} want ${want}`)

  const create = args.to === undefined
  const session = new TraceSession(vm, tracer, { deadline, ...(env.signal ? { signal: env.signal } : {}) })
  await session.attach({
    from,
    to: args.to ?? (await createdAddress(sm, from)),
    create,
    input: data,
    value,
    gasLimit: gas,
    gasPrice: price,
    coinbase,
  })
  let gasUsed: bigint
  let top: Awaited<ReturnType<EVM['runCall']>>
  try {
    await sm.modifyAccountFields(sender, { balance: have - gas * price })
    const intrinsic = intrinsicGas(args)
    if (gas < intrinsic) throw failed(`intrinsic gas too low: have ${gas}, want ${intrinsic}`)
    if (value > 0n && have - gas * price < value)
      throw failed(`insufficient funds for transfer: address ${checksum(from)}`)
    if (create && data.length > MAX_INIT_CODE_SIZE)
      throw failed(`max initcode size exceeded: code size ${data.length} limit ${MAX_INIT_CODE_SIZE}`)
    const journal = vm.evm.journal
    await journal.cleanup()
    for (const key of vm.evm.precompiles.keys()) journal.addAlwaysWarmAddress(key)
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(from))
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(coinbase))
    if (args.to !== undefined) journal.addAlwaysWarmAddress(bytesToUnprefixedHex(args.to))
    for (const t of args.accessList ?? []) {
      const a = bytesToUnprefixedHex(t.address)
      journal.addAlwaysWarmAddress(a, true)
      for (const k of t.storageKeys) journal.addAlwaysWarmSlot(a, bytesToUnprefixedHex(k), true)
    }
    const account = await sm.getAccount(sender)
    await sm.modifyAccountFields(sender, { nonce: (account?.nonce ?? 0n) + 1n })
    top = await vm.evm.runCall({
      block,
      gasPrice: price,
      caller: sender,
      origin: sender,
      ...(args.to === undefined ? {} : { to: new Address(args.to) }),
      value,
      data,
      gasLimit: gas - intrinsic,
      skipNonceIncrement: true,
    })
    gasUsed = intrinsic + top.execResult.executionGasUsed
  } finally {
    session.detach()
  }
  session.check()
  // refund the unused gas, pay the coinbase in full
  const after = (await sm.getAccount(sender))?.balance ?? 0n
  await sm.modifyAccountFields(sender, { balance: after + (gas - gasUsed) * price })
  const fee = gasUsed * price
  if (fee > 0n) {
    const miner = new Address(coinbase)
    const balance = (await sm.getAccount(miner))?.balance ?? 0n
    await sm.modifyAccountFields(miner, { balance: balance + fee })
  }
  const end = session.top
  await tracer.txEnd?.(
    { gasUsed, output: end?.output ?? top.execResult.returnValue, ...(end?.error ? { error: end.error } : {}) },
    sm,
  )
  return tracer.result()
}
