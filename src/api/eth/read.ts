/**
 * The read side of the C chain's `eth` namespace (coreth internal/ethapi BlockChainAPI, TransactionAPI and
 * EthereumAPI lookups): chain id and head, account state and EIP-1186 proofs, blocks and headers, transactions,
 * receipts, and the Avalanche extras (eth_getChainConfig, eth_coinbase). Block selectors go through
 * `backend.resolveBlock` (reference/cchain.md 3.2); where coreth swallows lookup errors (counts, by-index lookups,
 * getHeaderByHash, getBlockReceipts) so does this file.
 */
import { createTxFromBlockBodyData, type TypedTransaction } from '@ethereumjs/tx'
import { Address, bytesToBigInt, KECCAK256_RLP, setLengthLeft } from '@ethereumjs/util'
import { decodeBlock } from '../../chains/evm/header.js'
import { chainConfigJson } from '../../chains/evm/rules/chain-config-json.js'
import { blockJson } from '../../chains/evm/rules/header-json.js'
import { getProof } from '../../chains/evm/state/view.js'
import { rpcPendingTx } from '../../chains/evm/txpool/format.js'
import { checkArity, goJsonKind, invalidArgument } from '../ethrpc/args.js'
import type { EthMethod } from '../ethrpc/types.js'
import type { EthBackend, ResolvedBlock } from './backend.js'
import { rpcReceipt, rpcTransaction } from './format.js'
import {
  type BlockSelector,
  hex,
  parseAddress,
  parseBlockNumber,
  parseBlockNumberOrHash,
  parseBool,
  parseHash,
  parseUint,
  qty,
} from './hexutil.js'

/** eth_coinbase / eth_etherbase: coreth's BlackholeAddr. */
export const COINBASE = '0x0100000000000000000000000000000000000000'

type Decoder<T> = (v: unknown, i: number) => T

/** geth's order: decode each given argument (up to the method's count), then check the count. */
function decodeArgs<T extends unknown[]>(params: unknown[], decoders: { [K in keyof T]: Decoder<T[K]> }): T {
  const out: unknown[] = []
  const n = Math.min(params.length, decoders.length)
  for (let i = 0; i < n; i++) out.push((decoders[i] as Decoder<unknown>)(params[i], i))
  checkArity(params, decoders.length, decoders.length)
  return out as T
}

/** A JSON null for a Go bool leaves it false. */
const fullTxArg: Decoder<boolean> = (v, i) => (v === null ? false : parseBool(v, i))

/** hexutil.Uint (a tx or uncle index). */
const indexArg: Decoder<bigint> = parseUint

/** A Go `string` argument. */
const stringArg: Decoder<string> = (v, i) => {
  if (typeof v !== 'string')
    throw invalidArgument(i, `json: cannot unmarshal ${goJsonKind(v)} into Go value of type string`)
  return v
}

/** A Go `[]string` argument (null is an empty list). */
const stringsArg: Decoder<string[]> = (v, i) => {
  if (v === null) return []
  if (!Array.isArray(v))
    throw invalidArgument(i, `json: cannot unmarshal ${goJsonKind(v)} into Go value of type []string`)
  return v.map((s) => {
    if (typeof s !== 'string')
      throw invalidArgument(i, `json: cannot unmarshal ${goJsonKind(s)} into Go value of type string`)
    return s
  })
}

const hashSelector: Decoder<BlockSelector> = (v, i) => ({
  kind: 'hash',
  hash: parseHash(v, i),
  requireCanonical: false,
})

/** ethapi decodeHash: optional 0x, odd length allowed, at most 32 bytes, left-padded. */
export function decodeStorageKey(s: string): { key: Uint8Array; length: number } {
  let digits = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s
  if (digits.length % 2 === 1) digits = `0${digits}`
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new Error('hex string invalid')
  if (digits.length > 64) throw new Error('hex string too long, want at most 32 bytes')
  return { key: Uint8Array.from(Buffer.from(digits.padStart(64, '0'), 'hex')), length: digits.length / 2 }
}

/** historical proof window (coreth stateQueryBlockNumberAllowed); null = unlimited. */
function proofWindow(backend: EthBackend): bigint | null {
  const c = backend.config
  if (!c.pruningEnabled && c.historicalProofQueryWindow === 0) return null
  return BigInt(c.pruningEnabled ? c.stateHistory : c.historicalProofQueryWindow)
}

export function readMethods(backend: EthBackend): Array<[string, EthMethod]> {
  const common = backend.core.common
  const decodeTx = (raw: Uint8Array): TypedTransaction => createTxFromBlockBodyData(raw, { common })

  /** The state of the block `sel` names (StateAndHeaderByNumberOrHash). */
  async function stateOf(sel: BlockSelector) {
    const block = await backend.resolveBlock(sel)
    if (block === null) throw new Error(sel.kind === 'hash' ? 'header for hash not found' : 'header not found')
    return { block, state: await backend.core.stateAt(block.header.stateRoot) }
  }

  /** resolveBlock with coreth's swallowed errors (a failed lookup is "no block"). */
  async function quietBlock(sel: BlockSelector): Promise<ResolvedBlock | null> {
    try {
      return await backend.resolveBlock(sel)
    } catch {
      return null
    }
  }

  function blockResult(b: ResolvedBlock, fullTx: boolean): Record<string, unknown> {
    const { header, txs, extData } = decodeBlock(b.rlp)
    const transactions = txs.map((raw, index) => {
      const tx = decodeTx(raw)
      if (!fullTx) return hex(tx.hash())
      return rpcTransaction(tx, {
        blockHash: b.hash,
        blockNumber: header.number,
        index,
        ...(header.baseFee === undefined ? {} : { baseFee: header.baseFee }),
      })
    })
    return blockJson(header, b.hash, BigInt(b.rlp.length), transactions, extData)
  }

  /** coreth's rpcMarshalHeader: the block fields without size, extra data, transactions and uncles. */
  function headerResult(b: ResolvedBlock): Record<string, unknown> {
    const { header, extData } = decodeBlock(b.rlp)
    const out = blockJson(header, b.hash, 0n, [], extData)
    for (const key of ['size', 'blockExtraData', 'transactions', 'uncles']) delete out[key]
    return out
  }

  function txAt(b: ResolvedBlock, index: bigint): Record<string, unknown> | null {
    const { header, txs } = decodeBlock(b.rlp)
    const raw = index < BigInt(txs.length) ? txs[Number(index)] : undefined
    if (raw === undefined) return null
    return rpcTransaction(decodeTx(raw), {
      blockHash: b.hash,
      blockNumber: header.number,
      index: Number(index),
      ...(header.baseFee === undefined ? {} : { baseFee: header.baseFee }),
    })
  }

  function rawTxAt(b: ResolvedBlock | null, index: bigint): string {
    if (b === null) return '0x'
    const { txs } = decodeBlock(b.rlp)
    const raw = index < BigInt(txs.length) ? txs[Number(index)] : undefined
    return raw === undefined ? '0x' : hex(raw)
  }

  /** An accepted tx: its block, position and decoded form. */
  async function acceptedTx(hash: Uint8Array) {
    const loc = await backend.core.getTxLocation(hash)
    if (loc === undefined) return undefined
    const rlp = await backend.core.getBlockByHash(loc.blockHash)
    if (rlp === undefined) return undefined
    const { header, txs } = decodeBlock(rlp)
    const raw = txs[loc.index]
    if (raw === undefined) return undefined
    return { loc, header, raw, tx: decodeTx(raw) }
  }

  async function blockReceipts(b: ResolvedBlock): Promise<Record<string, unknown>[]> {
    const { header, txs } = decodeBlock(b.rlp)
    const receipts = (await backend.core.getReceipts(b.hash)) ?? []
    if (receipts.length !== txs.length) throw new Error(`receipts length mismatch: ${txs.length} vs ${receipts.length}`)
    let firstLogIndex = 0
    return receipts.map((r, index) => {
      const out = rpcReceipt(r, decodeTx(txs[index]!), {
        blockHash: b.hash,
        blockNumber: header.number,
        index,
        firstLogIndex,
      })
      firstLogIndex += r.logs.length
      return out
    })
  }

  /** coreth stateQueryBlockNumberAllowed, wrapped as `historical proof query not allowed: ...`. */
  async function checkProofWindow(sel: BlockSelector): Promise<void> {
    const window = proofWindow(backend)
    if (window === null) return
    const lastAccepted = backend.lastAccepted().header.number
    let number: bigint
    if (sel.kind === 'tag') {
      // tags are negative rpc.BlockNumbers, huge as uint64; earliest is 0 in coreth
      if (sel.tag !== 'earliest') return
      number = 0n
    } else if (sel.kind === 'number') {
      number = sel.number
    } else {
      let block: ResolvedBlock | null
      try {
        block = await backend.resolveBlock(sel)
      } catch (err) {
        throw new Error(`historical proof query not allowed: failed to get block from hash: ${(err as Error).message}`)
      }
      if (block === null)
        throw new Error(`historical proof query not allowed: block from hash ${hex(sel.hash)} doesn't exist`)
      number = block.header.number
    }
    const oldest = lastAccepted > window ? lastAccepted - window : 0n
    if (number >= oldest) return
    throw new Error(
      `historical proof query not allowed: block number ${number} is before the oldest allowed block number ${oldest} (window of ${window} blocks)`,
    )
  }

  const methods: Array<[string, EthMethod]> = [
    [
      'eth_chainId',
      (p) => {
        decodeArgs(p, [])
        return qty(backend.chainId)
      },
    ],
    [
      'eth_blockNumber',
      (p) => {
        decodeArgs(p, [])
        return qty(backend.latest().header.number)
      },
    ],
    [
      'eth_getBalance',
      async (p) => {
        const [address, sel] = decodeArgs(p, [parseAddress, parseBlockNumberOrHash])
        const { state } = await stateOf(sel)
        const account = await state.getAccount(new Address(address))
        return qty(account?.balance ?? 0n)
      },
    ],
    [
      'eth_getCode',
      async (p) => {
        const [address, sel] = decodeArgs(p, [parseAddress, parseBlockNumberOrHash])
        const { state } = await stateOf(sel)
        return hex(await state.getCode(new Address(address)))
      },
    ],
    [
      'eth_getStorageAt',
      async (p) => {
        const [address, hexKey, sel] = decodeArgs(p, [parseAddress, stringArg, parseBlockNumberOrHash])
        const { state } = await stateOf(sel)
        let key: Uint8Array
        try {
          key = decodeStorageKey(hexKey).key
        } catch (err) {
          throw new Error(`unable to decode storage key: ${(err as Error).message}`)
        }
        return hex(setLengthLeft(await state.getStorage(new Address(address), key), 32))
      },
    ],
    [
      'eth_getTransactionCount',
      async (p) => {
        const [address, sel] = decodeArgs(p, [parseAddress, parseBlockNumberOrHash])
        if (sel.kind === 'tag' && sel.tag === 'pending') return qty(await backend.pool.nonce(new Address(address)))
        const { state } = await stateOf(sel)
        const account = await state.getAccount(new Address(address))
        return qty(account?.nonce ?? 0n)
      },
    ],
    [
      'eth_getProof',
      async (p) => {
        const [address, hexKeys, sel] = decodeArgs(p, [parseAddress, stringsArg, parseBlockNumberOrHash])
        await checkProofWindow(sel)
        const keys = hexKeys.map(decodeStorageKey)
        const { state } = await stateOf(sel)
        const proof = await getProof(
          state,
          new Address(address),
          keys.map((k) => k.key),
        )
        const exists = (await state.getAccount(new Address(address))) !== undefined
        const zero = hex(new Uint8Array(32))
        const storageHash = exists ? proof.storageHash : zero
        const emptyStorage = !exists || storageHash === hex(KECCAK256_RLP)
        const storageProof = keys.map((k, i) => {
          const outKey = k.length === 32 ? hex(k.key) : qty(bytesToBigInt(k.key))
          const item = proof.storageProof[i]
          if (emptyStorage || item === undefined) return { key: outKey, value: '0x0', proof: [] }
          return { key: outKey, value: qty(BigInt(item.value === '0x' ? '0x0' : item.value)), proof: item.proof }
        })
        return {
          address: hex(address),
          accountProof: proof.accountProof,
          balance: proof.balance,
          codeHash: exists ? proof.codeHash : zero,
          nonce: proof.nonce,
          storageHash,
          storageProof,
        }
      },
    ],
    [
      'eth_getBlockByNumber',
      async (p) => {
        const [sel, fullTx] = decodeArgs(p, [parseBlockNumber, fullTxArg])
        const b = await backend.resolveBlock(sel)
        return b === null ? null : blockResult(b, fullTx)
      },
    ],
    [
      'eth_getBlockByHash',
      async (p) => {
        const [sel, fullTx] = decodeArgs(p, [hashSelector, fullTxArg])
        const b = await backend.resolveBlock(sel)
        return b === null ? null : blockResult(b, fullTx)
      },
    ],
    [
      'eth_getHeaderByNumber',
      async (p) => {
        const [sel] = decodeArgs(p, [parseBlockNumber])
        const b = await backend.resolveBlock(sel)
        return b === null ? null : headerResult(b)
      },
    ],
    [
      'eth_getHeaderByHash',
      async (p) => {
        const [sel] = decodeArgs(p, [hashSelector])
        const b = await quietBlock(sel)
        return b === null ? null : headerResult(b)
      },
    ],
    [
      'eth_getBlockTransactionCountByNumber',
      async (p) => {
        const [sel] = decodeArgs(p, [parseBlockNumber])
        const b = await quietBlock(sel)
        return b === null ? null : qty(decodeBlock(b.rlp).txs.length)
      },
    ],
    [
      'eth_getBlockTransactionCountByHash',
      async (p) => {
        const [sel] = decodeArgs(p, [hashSelector])
        const b = await quietBlock(sel)
        return b === null ? null : qty(decodeBlock(b.rlp).txs.length)
      },
    ],
    [
      'eth_getUncleByBlockNumberAndIndex',
      async (p) => {
        const [sel] = decodeArgs(p, [parseBlockNumber, indexArg])
        await backend.resolveBlock(sel)
        return null
      },
    ],
    [
      'eth_getUncleByBlockHashAndIndex',
      async (p) => {
        const [sel] = decodeArgs(p, [hashSelector, indexArg])
        await backend.resolveBlock(sel)
        return null
      },
    ],
    [
      'eth_getUncleCountByBlockNumber',
      async (p) => {
        const [sel] = decodeArgs(p, [parseBlockNumber])
        return (await quietBlock(sel)) === null ? null : '0x0'
      },
    ],
    [
      'eth_getUncleCountByBlockHash',
      async (p) => {
        const [sel] = decodeArgs(p, [hashSelector])
        return (await quietBlock(sel)) === null ? null : '0x0'
      },
    ],
    [
      'eth_getTransactionByHash',
      async (p) => {
        const [hash] = decodeArgs(p, [parseHash])
        const found = await acceptedTx(hash)
        if (found !== undefined) {
          return rpcTransaction(found.tx, {
            blockHash: found.loc.blockHash,
            blockNumber: found.loc.blockNumber,
            index: found.loc.index,
            ...(found.header.baseFee === undefined ? {} : { baseFee: found.header.baseFee }),
          })
        }
        const pooled = backend.pool.entry(hex(hash))
        return pooled === undefined ? null : rpcPendingTx(pooled)
      },
    ],
    [
      'eth_getTransactionByBlockNumberAndIndex',
      async (p) => {
        const [sel, index] = decodeArgs(p, [parseBlockNumber, indexArg])
        const b = await quietBlock(sel)
        return b === null ? null : txAt(b, index)
      },
    ],
    [
      'eth_getTransactionByBlockHashAndIndex',
      async (p) => {
        const [sel, index] = decodeArgs(p, [hashSelector, indexArg])
        const b = await quietBlock(sel)
        return b === null ? null : txAt(b, index)
      },
    ],
    [
      'eth_getRawTransactionByHash',
      async (p) => {
        const [hash] = decodeArgs(p, [parseHash])
        const found = await acceptedTx(hash)
        if (found !== undefined) return hex(found.raw)
        const pooled = backend.pool.get(hex(hash))
        return pooled === undefined ? '0x' : hex(pooled.serialize())
      },
    ],
    [
      'eth_getRawTransactionByBlockNumberAndIndex',
      async (p) => {
        const [sel, index] = decodeArgs(p, [parseBlockNumber, indexArg])
        return rawTxAt(await quietBlock(sel), index)
      },
    ],
    [
      'eth_getRawTransactionByBlockHashAndIndex',
      async (p) => {
        const [sel, index] = decodeArgs(p, [hashSelector, indexArg])
        return rawTxAt(await quietBlock(sel), index)
      },
    ],
    [
      'eth_getTransactionReceipt',
      async (p) => {
        const [hash] = decodeArgs(p, [parseHash])
        const found = await acceptedTx(hash)
        if (found === undefined) return null
        const receipts = (await backend.core.getReceipts(found.loc.blockHash)) ?? []
        const receipt = receipts[found.loc.index]
        if (receipt === undefined) return null
        let firstLogIndex = 0
        for (let i = 0; i < found.loc.index; i++) firstLogIndex += receipts[i]!.logs.length
        return rpcReceipt(receipt, found.tx, {
          blockHash: found.loc.blockHash,
          blockNumber: found.loc.blockNumber,
          index: found.loc.index,
          firstLogIndex,
        })
      },
    ],
    [
      'eth_getBlockReceipts',
      async (p) => {
        const [sel] = decodeArgs(p, [parseBlockNumberOrHash])
        const b = await quietBlock(sel)
        return b === null ? null : blockReceipts(b)
      },
    ],
    [
      'eth_syncing',
      (p) => {
        decodeArgs(p, [])
        return false
      },
    ],
    [
      'eth_coinbase',
      (p) => {
        decodeArgs(p, [])
        return COINBASE
      },
    ],
    [
      'eth_etherbase',
      (p) => {
        decodeArgs(p, [])
        return COINBASE
      },
    ],
    [
      'eth_getChainConfig',
      (p) => {
        decodeArgs(p, [])
        return chainConfigJson(backend.preset)
      },
    ],
    [
      'eth_getBadBlocks',
      (p) => {
        decodeArgs(p, [])
        return []
      },
    ],
    [
      'eth_pendingTransactions',
      (p) => {
        decodeArgs(p, [])
        return []
      },
    ],
  ]
  return methods
}
