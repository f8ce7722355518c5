/**
 * The keystore-backed JSON-RPC methods of the C chain (coreth internal/ethapi): `personal_*`
 * (internal-personal), `eth_accounts` (internal-account) and the signing methods of internal-transaction
 * (eth_sendTransaction, eth_signTransaction, eth_sign, eth_fillTransaction). Transaction defaults follow
 * TransactionArgs.setDefaults; results and errors are geth's, to the letter. The keystore is a directory of
 * key files, each one wallet, as geth's keystore backend presents it.
 */
import {
  createAccessList2930Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  TransactionType,
  type TypedTransaction,
} from '@ethereumjs/tx'
import { toChecksumAddress } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { parseDerivationPath } from '../../chains/evm/keystore/derivation-path.js'
import { addressHex, type Keystore, KeystoreText } from '../../chains/evm/keystore/keystore.js'
import { recoverAddress, textHash } from '../../chains/evm/keystore/signing.js'
import { checkArity } from '../ethrpc/args.js'
import type { EthMethod } from '../ethrpc/index.js'
import type { EthBackend } from './backend.js'
import {
  ArgError,
  atArgument,
  goJsonKind,
  hex,
  parseAddress,
  parseBytes,
  parseTxArgs,
  qty,
  type TxArgs,
} from './hexutil.js'

export interface AccountMethods {
  personal: Array<[string, EthMethod]>
  account: Array<[string, EthMethod]>
  transaction: Array<[string, EthMethod]>
}

/** The tip suggestion (eth_maxPriorityFeePerGas); idle chains suggest 1 wei. */
export type SuggestTip = () => Promise<bigint>

const ZERO_ADDRESS = new Uint8Array(20)
/** geth's unlock default and its largest duration (time.Duration(MaxInt64) / time.Second). */
const DEFAULT_UNLOCK_SECONDS = 300
const MAX_UNLOCK_SECONDS = 9_223_372_036

// ---- argument decoders (Go's json into string / *string / *bool / *uint64) ----

const goType = (v: unknown, type: string) =>
  new ArgError(`json: cannot unmarshal ${goJsonKind(v)} into Go value of type ${type}`)

/** `string`: null decodes to "" as in Go. */
const parseString = (v: unknown, i: number): string =>
  atArgument(i, () => {
    if (v === null) return ''
    if (typeof v !== 'string') throw goType(v, 'string')
    return v
  })

const parseOptString = (v: unknown, i: number): string | undefined =>
  v === null || v === undefined ? undefined : parseString(v, i)

const parseOptBool = (v: unknown, i: number): boolean | undefined =>
  atArgument(i, () => {
    if (v === null || v === undefined) return undefined
    if (typeof v !== 'boolean') throw goType(v, 'bool')
    return v
  })

const parseOptUint64 = (v: unknown, i: number): number | undefined =>
  atArgument(i, () => {
    if (v === null || v === undefined) return undefined
    if (typeof v !== 'number') throw goType(v, 'uint64')
    if (!Number.isInteger(v) || v < 0 || v > 2 ** 64 - 1)
      throw new ArgError(`json: cannot unmarshal number ${v} into Go value of type uint64`)
    return v
  })

/** TransactionArgs: null decodes to the zero value. */
const parseArgs = (v: unknown, i: number): TxArgs => (v === null ? {} : parseTxArgs(v, i))

/**
 * Decode the arguments present, in order (geth reports a bad argument before a wrong count); an absent one is
 * undefined, and `checkArity` then rejects it when it is required.
 */
function decodeArgs<T extends unknown[]>(
  params: unknown[],
  required: number,
  decoders: { [K in keyof T]: (v: unknown, i: number) => T[K] },
): T {
  const out = decoders.map((decode, i) => (i < params.length ? decode(params[i], i) : undefined)) as T
  checkArity(params, required, decoders.length)
  return out
}

// ---- fees (checkTxFee) ----

const WEI_PER_ETHER = 10n ** 18n

/** Go's `%.2f` of a float64: the exact value rounded half to even. */
export function goFixed2(x: number): string {
  if (Math.abs(x) >= 1e21) return `${BigInt(x)}.00`
  // toFixed takes the larger neighbour on an exact tie; ties at 2 decimals are the doubles k/8 with k odd
  if (Number.isInteger(x * 8) && !Number.isInteger(x * 4)) {
    const n = Math.floor(x * 100)
    return ((n % 2 === 0 ? n : n + 1) / 100).toFixed(2)
  }
  return x.toFixed(2)
}

/** checkTxFee: `tx fee (X ether) exceeds the configured cap (Y ether)` (cap 0 = none). */
export function checkTxFee(price: bigint, gas: bigint, cap: number): void {
  if (cap === 0) return
  const fee = price * gas
  const feeFloat = Number.parseFloat(`${fee / WEI_PER_ETHER}.${(fee % WEI_PER_ETHER).toString().padStart(18, '0')}`)
  if (feeFloat > cap)
    throw new Error(`tx fee (${goFixed2(feeFloat)} ether) exceeds the configured cap (${goFixed2(cap)} ether)`)
}

// ---- transactions: defaults, assembly and geth's JSON ----

/** TransactionArgs after setDefaults. */
interface FilledArgs extends TxArgs {
  nonce: bigint
  gas: bigint
  value: bigint
  chainId: bigint
}

/** toTransaction: 1559 when maxFeePerGas is set, else 2930 with an access list, else legacy. */
function toTransaction(backend: EthBackend, a: TxArgs & { nonce: bigint; gas: bigint }): TypedTransaction {
  const common = backend.core.common
  const base = {
    nonce: a.nonce,
    gasLimit: a.gas,
    ...(a.to === undefined ? {} : { to: a.to }),
    value: a.value ?? 0n,
    data: a.data ?? new Uint8Array(0),
  }
  const accessList = (a.accessList ?? []).map((t): [Uint8Array, Uint8Array[]] => [t.address, t.storageKeys])
  const chainId = a.chainId ?? backend.chainId
  if (a.maxFeePerGas !== undefined)
    return createFeeMarket1559Tx(
      { ...base, chainId, maxFeePerGas: a.maxFeePerGas, maxPriorityFeePerGas: a.maxPriorityFeePerGas, accessList },
      { common },
    )
  if (a.accessList !== undefined)
    return createAccessList2930Tx({ ...base, chainId, gasPrice: a.gasPrice, accessList }, { common })
  return createLegacyTx({ ...base, gasPrice: a.gasPrice }, { common })
}

/** The price checkTxFee weighs: tx.GasPrice() (the fee cap of a 1559 tx). */
const feePrice = (a: TxArgs): bigint => a.maxFeePerGas ?? a.gasPrice ?? 0n

/** types.Transaction's JSON (MarshalJSON: txJSON), for {raw, tx} results. */
export function txJson(tx: TypedTransaction): Record<string, unknown> {
  const signed = tx.isSigned()
  const hash = signed ? tx.hash() : keccak_256(tx.serialize())
  const v = tx.v ?? 0n
  const to = tx.to === undefined ? null : tx.to.toString()
  const common = { nonce: qty(tx.nonce), to, gas: qty(tx.gasLimit) }
  const tail = { value: qty(tx.value), input: hex(tx.data) }
  const sig = { v: qty(v), r: qty(tx.r ?? 0n), s: qty(tx.s ?? 0n) }
  const accessList = () =>
    ('accessList' in tx ? tx.accessList : []).map(([address, keys]) => ({
      address: hex(address),
      storageKeys: keys.map((k) => hex(k)),
    }))
  if (tx.type === TransactionType.Legacy) {
    const protectedV = v !== 0n && v !== 1n && v !== 27n && v !== 28n
    return {
      type: '0x0',
      ...(protectedV ? { chainId: qty((v - 35n) / 2n) } : {}),
      ...common,
      gasPrice: qty((tx as { gasPrice: bigint }).gasPrice),
      maxPriorityFeePerGas: null,
      maxFeePerGas: null,
      ...tail,
      ...sig,
      hash: hex(hash),
    }
  }
  const chainId = qty((tx as { chainId: bigint }).chainId)
  if (tx.type === TransactionType.AccessListEIP2930)
    return {
      type: '0x1',
      chainId,
      ...common,
      gasPrice: qty((tx as { gasPrice: bigint }).gasPrice),
      maxPriorityFeePerGas: null,
      maxFeePerGas: null,
      ...tail,
      accessList: accessList(),
      ...sig,
      yParity: qty(v),
      hash: hex(hash),
    }
  const fee = tx as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  return {
    type: qty(tx.type),
    chainId,
    ...common,
    gasPrice: null,
    maxPriorityFeePerGas: qty(fee.maxPriorityFeePerGas),
    maxFeePerGas: qty(fee.maxFeePerGas),
    ...tail,
    accessList: accessList(),
    ...sig,
    yParity: qty(v),
    hash: hex(hash),
  }
}

const signResult = (tx: TypedTransaction) => ({ raw: hex(tx.serialize()), tx: txJson(tx) })

export function accountMethods(
  backend: EthBackend,
  keystore: Keystore,
  suggestTip: SuggestTip = async () => 1n,
): AccountMethods {
  const config = backend.config

  /** Manager.Find: the account must be one of the keystore's, else `unknown account`. */
  async function requireAccount(address: Uint8Array): Promise<void> {
    if (!(await keystore.hasAddress(address))) throw new Error(KeystoreText.unknownAccount)
  }

  /** Manager.Wallet: `protocol scheme missing` / `unknown wallet`. */
  async function requireWallet(url: string): Promise<void> {
    const parts = url.split('://')
    if (parts.length !== 2 || parts[0] === '') throw new Error('protocol scheme missing')
    const found = (await keystore.accounts()).some((a) => parts[0] === 'keystore' && a.path === parts[1])
    if (!found) throw new Error('unknown wallet')
  }

  /** setFeeDefaults (London is active from genesis on the C chain). */
  async function setFeeDefaults(a: TxArgs): Promise<void> {
    if (a.gasPrice !== undefined && (a.maxFeePerGas !== undefined || a.maxPriorityFeePerGas !== undefined))
      throw new Error('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
    if (a.gasPrice === undefined && a.maxFeePerGas !== undefined && a.maxPriorityFeePerGas !== undefined) {
      if (a.maxFeePerGas === 0n) throw new Error('maxFeePerGas must be non-zero')
      if (a.maxFeePerGas < a.maxPriorityFeePerGas)
        throw new Error(`maxFeePerGas (${qty(a.maxFeePerGas)}) < maxPriorityFeePerGas (${qty(a.maxPriorityFeePerGas)})`)
      return
    }
    if (a.gasPrice !== undefined) {
      if (a.gasPrice === 0n) throw new Error('gasPrice must be non-zero after london fork')
      return
    }
    // setApricotPhase3FeeDefault: the head's base fee, doubled, plus the tip
    if (a.maxPriorityFeePerGas === undefined) a.maxPriorityFeePerGas = await suggestTip()
    if (a.maxFeePerGas === undefined) {
      const baseFee = backend.latest().header.baseFee ?? backend.estimateNextBaseFee()
      a.maxFeePerGas = a.maxPriorityFeePerGas + 2n * baseFee
    }
    if (a.maxFeePerGas < a.maxPriorityFeePerGas)
      throw new Error(`maxFeePerGas (${qty(a.maxFeePerGas)}) < maxPriorityFeePerGas (${qty(a.maxPriorityFeePerGas)})`)
  }

  /** TransactionArgs.setDefaults (skipGasEstimation = false). */
  async function setDefaults(args: TxArgs): Promise<FilledArgs> {
    const a: TxArgs = { ...args }
    await setFeeDefaults(a)
    const from = a.from ?? ZERO_ADDRESS
    a.value ??= 0n
    a.nonce ??= await backend.pool.nonce(addressHex(from))
    if (a.to === undefined && (a.data?.length ?? 0) === 0)
      throw new Error('contract creation without any data provided')
    if (a.gas === undefined) {
      a.gas = await backend.core.estimateGas(
        backend.latest().header,
        {
          from,
          ...(a.to === undefined ? {} : { to: a.to }),
          data: a.data ?? new Uint8Array(0),
          value: a.value,
          ...(a.gasPrice === undefined ? {} : { gasPrice: a.gasPrice }),
        },
        BigInt(config.rpcGasCap),
      )
    }
    if (a.chainId !== undefined && a.chainId !== backend.chainId)
      throw new Error(`chainId does not match node's (have=${a.chainId}, want=${backend.chainId})`)
    a.chainId = backend.chainId
    return a as FilledArgs
  }

  /** SubmitTransaction: the fee cap, then the pool. */
  async function submit(tx: TypedTransaction): Promise<string> {
    const price = 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice
    checkTxFee(price, tx.gasLimit, config.rpcTxFeeCap)
    return backend.submitTransaction(tx)
  }

  /** geth's AddrLocker: sends without a nonce from one address run one at a time. */
  const nonceLocks = new Map<string, Promise<unknown>>()
  function withNonceLock<T>(args: TxArgs, run: () => Promise<T>): Promise<T> {
    if (args.nonce !== undefined) return run()
    const key = addressHex(args.from ?? ZERO_ADDRESS)
    const prev = nonceLocks.get(key) ?? Promise.resolve()
    const next = prev.then(run, run)
    const settled = next.then(
      () => {},
      () => {},
    )
    nonceLocks.set(key, settled)
    void settled.then(() => {
      if (nonceLocks.get(key) === settled) nonceLocks.delete(key)
    })
    return next
  }

  /** PersonalAccountAPI.signTransaction: find, defaults, sign with the password. */
  async function signWithPassword(args: TxArgs, password: string): Promise<TypedTransaction> {
    const from = args.from ?? ZERO_ADDRESS
    await requireAccount(from)
    const filled = await setDefaults(args)
    return keystore.signTxWithPassword(from, password, toTransaction(backend, filled))
  }

  /** The checks personal_signTransaction and eth_signTransaction share (geth's texts, geth's order). */
  function checkSignArgs(a: TxArgs): void {
    if (a.gas === undefined) throw new Error('gas not specified')
    if (a.gasPrice === undefined && (a.maxPriorityFeePerGas === undefined || a.maxFeePerGas === undefined))
      throw new Error('missing gasPrice or maxFeePerGas/maxPriorityFeePerGas')
    if (a.nonce === undefined) throw new Error('nonce not specified')
  }

  const listAccounts = async (params: unknown[]) => {
    checkArity(params, 0, 0)
    return (await keystore.accounts()).map((a) => a.address)
  }

  const personal: Array<[string, EthMethod]> = [
    ['personal_listAccounts', listAccounts],
    [
      'personal_listWallets',
      async (params) => {
        checkArity(params, 0, 0)
        return (await keystore.accounts()).map((a) => ({
          url: a.url,
          status: keystore.isUnlocked(a.address) ? 'Unlocked' : 'Locked',
          accounts: [{ address: a.address, url: a.url }],
        }))
      },
    ],
    [
      'personal_openWallet',
      async (params) => {
        const [url] = decodeArgs<[string, string | undefined]>(params, 1, [parseString, parseOptString])
        await requireWallet(url)
        return null
      },
    ],
    [
      'personal_deriveAccount',
      async (params) => {
        const [url, path] = decodeArgs<[string, string, boolean | undefined]>(params, 2, [
          parseString,
          parseString,
          parseOptBool,
        ])
        await requireWallet(url)
        parseDerivationPath(path)
        throw new Error('not supported')
      },
    ],
    [
      'personal_newAccount',
      async (params) => {
        const [password] = decodeArgs<[string]>(params, 1, [parseString])
        const account = await keystore.newAccount(password)
        return toChecksumAddress(account.address)
      },
    ],
    [
      'personal_importRawKey',
      async (params) => {
        const [key, password] = decodeArgs<[string, string]>(params, 2, [parseString, parseString])
        return (await keystore.importRawKey(key, password)).address
      },
    ],
    [
      'personal_unlockAccount',
      async (params) => {
        const [address, password, duration] = decodeArgs<[Uint8Array, string, number | undefined]>(params, 2, [
          parseAddress,
          parseString,
          parseOptUint64,
        ])
        // coreth's node config reports external RPC as disabled, so its unlock never refuses HTTP callers
        if (duration !== undefined && duration > MAX_UNLOCK_SECONDS) throw new Error('unlock duration too large')
        await keystore.unlock(address, password, duration ?? DEFAULT_UNLOCK_SECONDS)
        return true
      },
    ],
    [
      'personal_lockAccount',
      (params) => {
        const [address] = decodeArgs<[Uint8Array]>(params, 1, [parseAddress])
        keystore.lock(address)
        return true
      },
    ],
    [
      'personal_sendTransaction',
      async (params) => {
        const [args, password] = decodeArgs<[TxArgs, string]>(params, 2, [parseArgs, parseString])
        return withNonceLock(args, async () => submit(await signWithPassword(args, password)))
      },
    ],
    [
      'personal_signTransaction',
      async (params) => {
        const [args, password] = decodeArgs<[TxArgs, string]>(params, 2, [parseArgs, parseString])
        if (args.from === undefined) throw new Error('sender not specified')
        checkSignArgs(args)
        checkTxFee(feePrice(args), args.gas!, config.rpcTxFeeCap)
        return signResult(await signWithPassword(args, password))
      },
    ],
    [
      'personal_sign',
      async (params) => {
        const [data, address, password] = decodeArgs<[Uint8Array, Uint8Array, string]>(params, 3, [
          parseBytes,
          parseAddress,
          parseString,
        ])
        await requireAccount(address)
        const sig = await keystore.signHashWithPassword(address, password, textHash(data))
        sig[64]! += 27
        return hex(sig)
      },
    ],
    [
      'personal_ecRecover',
      (params) => {
        const [data, sig] = decodeArgs<[Uint8Array, Uint8Array]>(params, 2, [parseBytes, parseBytes])
        if (sig.length !== 65) throw new Error('signature must be 65 bytes long')
        if (sig[64] !== 27 && sig[64] !== 28) throw new Error('invalid Ethereum signature (V is not 27 or 28)')
        const plain = Uint8Array.from(sig)
        plain[64]! -= 27
        return recoverAddress(textHash(data), plain)
      },
    ],
    [
      'personal_initializeWallet',
      async (params) => {
        const [url] = decodeArgs<[string]>(params, 1, [parseString])
        await requireWallet(url)
        throw new Error('specified wallet does not support initialization')
      },
    ],
    [
      'personal_unpair',
      async (params) => {
        const [url] = decodeArgs<[string, string]>(params, 2, [parseString, parseString])
        await requireWallet(url)
        throw new Error('specified wallet does not support pairing')
      },
    ],
  ]

  const account: Array<[string, EthMethod]> = [['eth_accounts', listAccounts]]

  const transaction: Array<[string, EthMethod]> = [
    [
      'eth_sendTransaction',
      async (params) => {
        const [args] = decodeArgs<[TxArgs]>(params, 1, [parseArgs])
        const from = args.from ?? ZERO_ADDRESS
        await requireAccount(from)
        return withNonceLock(args, async () => {
          const filled = await setDefaults(args)
          return submit(keystore.signTx(from, toTransaction(backend, filled)))
        })
      },
    ],
    [
      'eth_signTransaction',
      async (params) => {
        const [args] = decodeArgs<[TxArgs]>(params, 1, [parseArgs])
        checkSignArgs(args)
        const filled = await setDefaults(args)
        const tx = toTransaction(backend, filled)
        checkTxFee(feePrice(filled), filled.gas, config.rpcTxFeeCap)
        const from = args.from ?? ZERO_ADDRESS
        await requireAccount(from)
        return signResult(keystore.signTx(from, tx))
      },
    ],
    [
      'eth_sign',
      async (params) => {
        const [address, data] = decodeArgs<[Uint8Array, Uint8Array]>(params, 2, [parseAddress, parseBytes])
        await requireAccount(address)
        const sig = keystore.signHash(address, textHash(data))
        sig[64]! += 27
        return hex(sig)
      },
    ],
    [
      'eth_fillTransaction',
      async (params) => {
        const [args] = decodeArgs<[TxArgs]>(params, 1, [parseArgs])
        return signResult(toTransaction(backend, await setDefaults(args)))
      },
    ],
  ]

  return { personal, account, transaction }
}
