/** Real signed txs for the pool tests: three fixed keys, the C-chain Common (43112), and a map-backed state. */
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx'
import { type Address, createAddressFromPrivateKey, hexToBytes } from '@ethereumjs/util'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { TxPool, type TxPoolOptions } from '../../../../../../src/chains/evm/txpool/pool.js'
import type { AccountState, TxPoolConfig } from '../../../../../../src/chains/evm/txpool/state.js'

export const CHAIN_ID = 43112n
export const common = createEvmCommon(CHAIN_ID)
export const KEYS = [
  hexToBytes('0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027'),
  hexToBytes('0x7b4198529994b0dc604278c99d153cfd069d594753d471171a1d102a10438e07'),
  hexToBytes('0x15614556be13730e9e8d6eacc1603143e7b96987429df8726384c2ec4502ef6e'),
  hexToBytes('0x31b571bf6894a248831ff937bb49f7754509fe93bbd2517c9c73c4144c0e97dc'),
] as const
export const ADDRS: Address[] = KEYS.map((k) => createAddressFromPrivateKey(k))
export const TO = '0x0000000000000000000000000000000000000bee' as const
export const GWEI = 1_000_000_000n
export const RICH = 10n ** 24n

export function key(i: number): Uint8Array {
  return KEYS[i]!
}

export interface TxArgs {
  nonce: bigint
  gasLimit?: bigint
  value?: bigint
  data?: Uint8Array
  to?: `0x${string}` | null
}

export function legacy(k: number, a: TxArgs & { gasPrice?: bigint }, chainless = false): TypedTransaction {
  const tx = createLegacyTx(
    {
      nonce: a.nonce,
      gasPrice: a.gasPrice ?? 25n * GWEI,
      gasLimit: a.gasLimit ?? 21_000n,
      to: a.to === null ? undefined : (a.to ?? TO),
      value: a.value ?? 1n,
      data: a.data,
    },
    chainless ? {} : { common },
  )
  return tx.sign(key(k))
}

export function dynamic(k: number, a: TxArgs & { maxFee?: bigint; tip?: bigint }): TypedTransaction {
  return createFeeMarket1559Tx(
    {
      nonce: a.nonce,
      maxFeePerGas: a.maxFee ?? 30n * GWEI,
      maxPriorityFeePerGas: a.tip ?? GWEI,
      gasLimit: a.gasLimit ?? 21_000n,
      to: a.to === null ? undefined : (a.to ?? TO),
      value: a.value ?? 1n,
      data: a.data,
    },
    { common },
  ).sign(key(k))
}

export function accessList(k: number, a: TxArgs & { gasPrice?: bigint }): TypedTransaction {
  return createAccessList2930Tx(
    {
      nonce: a.nonce,
      gasPrice: a.gasPrice ?? 25n * GWEI,
      gasLimit: a.gasLimit ?? 30_000n,
      to: a.to ?? TO,
      value: a.value ?? 1n,
      accessList: [{ address: TO, storageKeys: [`0x${'00'.repeat(31)}01`] }],
    },
    { common },
  ).sign(key(k))
}

/** A world: account state in a map, a settable clock and base fee, and a pool over them. */
export function world(config: Partial<TxPoolConfig> = {}, extra: Partial<TxPoolOptions> = {}) {
  const state = new Map<string, AccountState>()
  for (const a of ADDRS) state.set(a.toString(), { nonce: 0n, balance: RICH })
  const clock = { now: 1_000_000 }
  const fees = { baseFee: (25n * GWEI) as bigint | undefined, gasLimit: 15_000_000n }
  const reader = async (address: Uint8Array) => {
    const hex = `0x${Buffer.from(address).toString('hex')}`
    return state.get(hex) ?? { nonce: 0n, balance: 0n }
  }
  const pool = new TxPool({
    chainId: CHAIN_ID,
    readAccount: reader,
    baseFee: () => fees.baseFee,
    gasLimit: () => fees.gasLimit,
    now: () => clock.now,
    config,
    ...extra,
  })
  const setAccount = (i: number, s: Partial<AccountState>) => {
    const a = ADDRS[i]!.toString()
    state.set(a, { ...(state.get(a) ?? { nonce: 0n, balance: 0n }), ...s })
  }
  return { pool, state, clock, fees, setAccount }
}

/** the rejection message of a promise (fails the test if it resolves) */
export async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    return (e as Error).message
  }
  throw new Error('expected a refusal')
}
