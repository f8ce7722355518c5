/**
 * eth_call / estimateGas overrides (internal/ethapi StateOverride, BlockOverrides): decoding with Go's texts and
 * applying them to a throw-away state view or to the block the call runs in. Also the block environment a call
 * sees (core.NewEVMBlockContext on the C chain: coinbase 0x0100..00, PREVRANDAO = difficulty = 1).
 */
import { type Block, createBlock } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { Account, Address, bigIntToBytes, bytesToHex, setLengthLeft } from '@ethereumjs/util'
import { invalidArgument } from '../../../rpc/eth-args.js'
import { remember } from '../../../runtime/bounded-map.js'
import { FirnError } from '../../../runtime/errors.js'
import { rulesKey } from '../exec/evm-tables.js'
import { BLACKHOLE } from '../header.js'
import type { AvaStateManager } from '../state/state-manager.js'
import { checksum } from '../txpool/entry.js'
import { goJsonKind, hex, parseAddress, parseBig, parseBytes, parseHash, parseUint64 } from './hexutil.js'

export interface AccountOverride {
  nonce?: bigint
  code?: Uint8Array
  balance?: bigint
  /** replaces the whole storage */
  state?: Map<string, Uint8Array>
  /** changes single slots */
  stateDiff?: Map<string, Uint8Array>
}

/** address (0x hex, lowercase) -> override */
export type StateOverrides = Map<string, AccountOverride>

export interface BlockOverrides {
  number?: bigint
  difficulty?: bigint
  time?: bigint
  gasLimit?: bigint
  coinbase?: Uint8Array
  baseFee?: bigint
  blobBaseFee?: bigint
}

const present = (v: unknown): boolean => v !== undefined && v !== null

/** Run a positional decoder as a struct field: `... into Go struct field S.f of type T`. */
function field<T>(decode: (v: unknown, i: number) => T, v: unknown, i: number, struct: string, name: string): T {
  try {
    return decode(v, i)
  } catch (err) {
    if (err instanceof FirnError)
      throw new FirnError(
        err.message.replace('into Go value of type', `into Go struct field ${struct}.${name} of type`),
        err.code,
      )
    throw err
  }
}

function objectAt(v: unknown, i: number, type: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw invalidArgument(i, `json: cannot unmarshal ${goJsonKind(v)} into Go value of type ${type}`)
  return v as Record<string, unknown>
}

function storageMap(v: unknown, i: number, name: string): Map<string, Uint8Array> {
  const o = objectAt(v, i, 'map[common.Hash]common.Hash')
  const out = new Map<string, Uint8Array>()
  for (const [k, value] of Object.entries(o)) {
    const key = parseHash(k, i)
    out.set(hex(key), field(parseHash, value, i, 'OverrideAccount', name))
  }
  return out
}

/** ethapi.StateOverride (null or absent: undefined). */
export function parseStateOverrides(v: unknown, i: number): StateOverrides | undefined {
  if (!present(v)) return undefined
  const o = objectAt(v, i, 'ethapi.StateOverride')
  const out: StateOverrides = new Map()
  for (const [k, raw] of Object.entries(o)) {
    const address = parseAddress(k, i)
    if (raw === null) {
      out.set(hex(address), {})
      continue
    }
    const a = objectAt(raw, i, 'ethapi.OverrideAccount')
    const acc: AccountOverride = {}
    if (present(a.nonce)) acc.nonce = field(parseUint64, a.nonce, i, 'OverrideAccount', 'nonce')
    if (present(a.code)) acc.code = field(parseBytes, a.code, i, 'OverrideAccount', 'code')
    if (present(a.balance)) acc.balance = field(parseBig, a.balance, i, 'OverrideAccount', 'balance')
    if (present(a.state)) acc.state = storageMap(a.state, i, 'state')
    if (present(a.stateDiff)) acc.stateDiff = storageMap(a.stateDiff, i, 'stateDiff')
    out.set(hex(address), acc)
  }
  return out
}

/** ethapi.BlockOverrides; Go matches its untagged field names case-insensitively. */
export function parseBlockOverrides(v: unknown, i: number): BlockOverrides | undefined {
  if (!present(v)) return undefined
  const o = objectAt(v, i, 'ethapi.BlockOverrides')
  const get = (name: string): unknown => {
    const key = Object.keys(o).find((k) => k.toLowerCase() === name.toLowerCase())
    return key === undefined ? undefined : o[key]
  }
  const out: BlockOverrides = {}
  const S = 'BlockOverrides'
  if (present(get('Number'))) out.number = field(parseBig, get('Number'), i, S, 'Number')
  if (present(get('Difficulty'))) out.difficulty = field(parseBig, get('Difficulty'), i, S, 'Difficulty')
  if (present(get('Time'))) out.time = field(parseUint64, get('Time'), i, S, 'Time')
  if (present(get('GasLimit'))) out.gasLimit = field(parseUint64, get('GasLimit'), i, S, 'GasLimit')
  if (present(get('Coinbase'))) out.coinbase = field(parseAddress, get('Coinbase'), i, S, 'Coinbase')
  if (present(get('BaseFee'))) out.baseFee = field(parseBig, get('BaseFee'), i, S, 'BaseFee')
  if (present(get('BlobBaseFee'))) out.blobBaseFee = field(parseBig, get('BlobBaseFee'), i, S, 'BlobBaseFee')
  return out
}

async function ensureAccount(sm: AvaStateManager, a: Address): Promise<Account> {
  const acc = await sm.getAccount(a)
  if (acc !== undefined) return acc
  const fresh = new Account()
  await sm.putAccount(a, fresh)
  return fresh
}

/** StateOverride.Apply. */
export async function applyStateOverrides(sm: AvaStateManager, overrides: StateOverrides | undefined): Promise<void> {
  if (overrides === undefined) return
  for (const [addr, o] of overrides) {
    const a = new Address(Buffer.from(addr.slice(2), 'hex'))
    if (o.nonce !== undefined) {
      const acc = await ensureAccount(sm, a)
      acc.nonce = o.nonce
      await sm.putAccount(a, acc)
    }
    if (o.code !== undefined) await sm.putCode(a, o.code)
    if (o.balance !== undefined) {
      const acc = await ensureAccount(sm, a)
      acc.balance = o.balance
      await sm.putAccount(a, acc)
    }
    if (o.state !== undefined && o.stateDiff !== undefined)
      throw new Error(`account ${checksum(addr)} has both 'state' and 'stateDiff'`)
    if (o.state !== undefined) {
      await ensureAccount(sm, a)
      await sm.clearStorage(a)
    }
    for (const slots of [o.state, o.stateDiff]) {
      if (slots === undefined) continue
      await ensureAccount(sm, a)
      for (const [key, value] of slots) await sm.putStorage(a, Buffer.from(key.slice(2), 'hex'), value)
    }
  }
}

/** What a call's block context is made of. */
export interface CallEnv {
  parentHash: Uint8Array
  number: bigint
  /** seconds */
  time: bigint
  gasLimit: bigint
  baseFee: bigint | undefined
  coinbase: Uint8Array
  difficulty: bigint
}

export function withBlockOverrides(env: CallEnv, o: BlockOverrides | undefined): CallEnv {
  if (o === undefined) return env
  return {
    ...env,
    ...(o.number === undefined ? {} : { number: o.number }),
    ...(o.difficulty === undefined ? {} : { difficulty: o.difficulty }),
    ...(o.time === undefined ? {} : { time: o.time }),
    ...(o.gasLimit === undefined ? {} : { gasLimit: o.gasLimit }),
    ...(o.coinbase === undefined ? {} : { coinbase: o.coinbase }),
    ...(o.baseFee === undefined ? {} : { baseFee: o.baseFee }),
  }
}

export const DEFAULT_COINBASE = BLACKHOLE

/** the last blocks calls ran in: every call at `latest` between two blocks runs in the same one */
const recentBlocks = new Map<string, Block>()
const RECENT_BLOCKS = 8

/**
 * The ethereumjs block a call runs in: PREVRANDAO carries the difficulty, as coreth copies it. A block is frozen
 * (createBlock's default) and only read by a run, so calls with the same rules and context share one (building
 * it was a fifth of an ERC-20 balanceOf call).
 */
export function callBlock(common: Common, env: CallEnv): Block {
  const key = [
    rulesKey(common),
    bytesToHex(env.parentHash),
    env.number,
    env.time,
    env.gasLimit,
    env.baseFee ?? '-',
    bytesToHex(env.coinbase),
    env.difficulty,
  ].join('|')
  return recentBlocks.get(key) ?? remember(recentBlocks, key, buildCallBlock(common, env), RECENT_BLOCKS)
}

function buildCallBlock(common: Common, env: CallEnv): Block {
  return createBlock(
    {
      header: {
        parentHash: env.parentHash,
        number: env.number,
        timestamp: env.time,
        gasLimit: env.gasLimit,
        baseFeePerGas: env.baseFee ?? 0n,
        coinbase: new Address(env.coinbase),
        difficulty: 0n,
        mixHash: setLengthLeft(bigIntToBytes(env.difficulty), 32),
        excessBlobGas: 0n,
        blobGasUsed: 0n,
        parentBeaconBlockRoot: new Uint8Array(32),
      },
    },
    { common, skipConsensusFormatValidation: true },
  )
}
