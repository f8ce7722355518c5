/**
 * A real C chain VM for unit tests: the local preset (EWOQ funded) on memory-level, with helpers to sign
 * transfers and to build + accept blocks from the pool as a lone validator would.
 */
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx'
import { createAddressFromString, hexToBytes, privateToAddress } from '@ethereumjs/util'
import { MemoryLevel } from 'memory-level'
import { defaultEvmConfig, type EvmConfig } from '../../src/chains/evm/config.js'
import { type EvmPreset, EWOQ_PRIVATE_KEY, evmPreset } from '../../src/chains/evm/rules/presets.js'
import { EvmVm } from '../../src/chains/evm/vm.js'

export const EWOQ_KEY = hexToBytes(`0x${EWOQ_PRIVATE_KEY}`)

export interface TransferOptions {
  to?: string
  value?: bigint
  data?: Uint8Array
  gasLimit?: bigint
  type?: 0 | 2
  nonce?: bigint
  key?: Uint8Array
  /** 1559: max fee (default 1000 gwei) and tip (default 1 gwei); legacy: gas price (default 1000 gwei) */
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  gasPrice?: bigint
}

export interface TestChain {
  vm: EvmVm
  signTransfer(opts?: TransferOptions): Promise<TypedTransaction>
  /** submit `txs` (if any) and build + accept one block; returns its hash */
  mine(txs?: TypedTransaction[]): Promise<Uint8Array>
  close(): Promise<void>
}

export interface TestChainOptions {
  config?: Partial<EvmConfig>
  /** ms clock (default: Date.now, kept strictly increasing so blocks never share a millisecond) */
  now?: () => number
  dev?: boolean
  /** the chain's rules and genesis (default: the local preset, with `dev`) */
  preset?: EvmPreset
}

export async function openTestChain(opts: TestChainOptions = {}): Promise<TestChain> {
  const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
  await db.open()
  let last = 0
  const now =
    opts.now ??
    (() => {
      last = Math.max(last + 1, Date.now())
      return last
    })
  const vm = await EvmVm.open({
    db,
    preset: opts.preset ?? evmPreset(12345, { dev: opts.dev ?? true }),
    config: { ...defaultEvmConfig(), ...opts.config },
    clientVersion: 'v1.14.0',
    now,
  })
  return {
    vm,
    signTransfer: transferSigner(vm),
    async mine(txs = []) {
      for (const tx of txs) await vm.submitTransaction(tx)
      const block = await vm.buildAndAccept()
      return block.hash
    },
    async close() {
      vm.close()
      await db.close()
    },
  }
}

/** Signs transfers on `vm`'s chain (EWOQ by default, the pool's next nonce unless given). */
export function transferSigner(vm: EvmVm): (o?: TransferOptions) => Promise<TypedTransaction> {
  const common = vm.core.common
  return async (o = {}) => {
    const key = o.key ?? EWOQ_KEY
    const from = createAddressFromString(`0x${Buffer.from(privateToAddress(key)).toString('hex')}`)
    const nonce = o.nonce ?? (await vm.pool.nonce(from))
    const base = {
      nonce,
      gasLimit: o.gasLimit ?? 21_000n,
      ...(o.to === undefined && o.data !== undefined ? {} : { to: (o.to ?? `0x${'11'.repeat(20)}`) as `0x${string}` }),
      value: o.value ?? 1n,
      data: o.data ?? new Uint8Array(0),
    }
    if ((o.type ?? 2) === 0)
      return createLegacyTx({ ...base, gasPrice: o.gasPrice ?? 10n ** 12n }, { common }).sign(key)
    return createFeeMarket1559Tx(
      {
        ...base,
        chainId: vm.chainId,
        maxFeePerGas: o.maxFeePerGas ?? 10n ** 12n,
        maxPriorityFeePerGas: o.maxPriorityFeePerGas ?? 10n ** 9n,
      },
      { common },
    ).sign(key)
  }
}
