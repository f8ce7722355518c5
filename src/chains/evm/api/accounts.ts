/**
 * The keystore-backed JSON-RPC methods of the C chain (coreth internal/ethapi): `personal_*`
 * (internal-personal), `eth_accounts` (internal-account) and the signing methods of internal-transaction
 * (eth_sendTransaction, eth_signTransaction, eth_sign, eth_fillTransaction). Transaction defaults follow
 * TransactionArgs.setDefaults; results and errors are geth's, to the letter. The keystore is a directory of
 * key files, each one wallet, as geth's keystore backend presents it. TransactionArgs defaults, tx assembly
 * and the fee cap live in tx-args.ts.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { toChecksumAddress } from '@ethereumjs/util'
import { checkArity } from '../../../rpc/eth-args.js'
import type { EthMethod } from '../../../rpc/eth-types.js'
import { parseDerivationPath } from '../keystore/derivation-path.js'
import { addressHex, type Keystore, KeystoreText } from '../keystore/keystore.js'
import { recoverAddress, textHash } from '../keystore/signing.js'
import type { EthBackend, SubmitTransaction } from './backend.js'
import { ArgError, atArgument, goJsonKind, hex, parseAddress, parseBytes, parseTxArgs, type TxArgs } from './hexutil.js'
import {
  checkTxFee,
  feePrice,
  setDefaults as fillDefaults,
  type SuggestTip,
  signResult,
  toTransaction,
  ZERO_ADDRESS,
} from './tx-args.js'

export { checkTxFee, goFixed2, type SuggestTip, txJson } from './tx-args.js'

export interface AccountMethods {
  personal: Array<[string, EthMethod]>
  account: Array<[string, EthMethod]>
  transaction: Array<[string, EthMethod]>
}

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

export function accountMethods(
  backend: EthBackend,
  keystore: Keystore,
  suggestTip: SuggestTip = async () => 1n,
  submitTransaction: SubmitTransaction = (tx) => backend.submitTransaction(tx),
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

  const setDefaults = (args: TxArgs) => fillDefaults(backend, suggestTip, args)

  /** SubmitTransaction: the fee cap, then the pool. */
  async function submit(tx: TypedTransaction): Promise<string> {
    const price = 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice
    checkTxFee(price, tx.gasLimit, config.rpcTxFeeCap)
    return submitTransaction(tx)
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
