/**
 * The read side of the C chain's `eth` namespace (coreth internal/ethapi BlockChainAPI, TransactionAPI and
 * EthereumAPI lookups): chain id and head, account state and EIP-1186 proofs, blocks and headers, transactions,
 * receipts, and the Avalanche extras (eth_getChainConfig, eth_coinbase). Block selectors go through
 * `backend.resolveBlock` (reference/cchain.md 3.2); where coreth swallows lookup errors (counts, by-index lookups,
 * getHeaderByHash, getBlockReceipts) so does this file. Argument decoders are in read-args.ts, block and receipt
 * results in read-format.ts.
 */
import { type Account, Address, bytesToBigInt, KECCAK256_RLP, setLengthLeft } from '@ethereumjs/util'
import type { EthMethod } from '../../../rpc/eth-types.js'
import { decodeBlock } from '../header.js'
import { chainConfigJson } from '../rules/chain-config-json.js'
import { getProof } from '../state/view.js'
import { rpcPendingTx } from '../txpool/format.js'
import type { EthBackend, ResolvedBlock } from './backend.js'
import { DecodedBlocks } from './decoded-blocks.js'
import { rpcReceipt, rpcTransaction } from './format.js'
import {
  type BlockSelector,
  hex,
  parseAddress,
  parseBlockNumber,
  parseBlockNumberOrHash,
  parseHash,
  qty,
} from './hexutil.js'
import {
  checkProofWindow,
  decodeArgs,
  decodeStorageKey,
  fullTxArg,
  hashSelector,
  indexArg,
  stringArg,
  stringsArg,
} from './read-args.js'
import { blockReceipts, blockResult, headerResult, rawTxAt, txAt } from './read-format.js'

export { decodeStorageKey } from './read-args.js'

/** eth_coinbase / eth_etherbase: coreth's BlackholeAddr. */
export const COINBASE = '0x0100000000000000000000000000000000000000'

export function readMethods(backend: EthBackend): Array<[string, EthMethod]> {
  const common = backend.core.common

  /** The state of the block `sel` names (StateAndHeaderByNumberOrHash). */
  async function stateOf(sel: BlockSelector) {
    const block = await blockOf(sel)
    return { block, state: await backend.core.stateAt(block.header.stateRoot) }
  }

  async function blockOf(sel: BlockSelector): Promise<ResolvedBlock> {
    const block = await backend.resolveBlock(sel)
    if (block === null) throw new Error(sel.kind === 'hash' ? 'header for hash not found' : 'header not found')
    return block
  }

  /**
   * The account at the state of the block `sel` names (the chain's account reads, exec/chain.ts): without a
   * promise when the block is at hand and the account was read there before (a client polling a balance).
   */
  function accountOf(sel: BlockSelector, address: Uint8Array): Account | undefined | Promise<Account | undefined> {
    const at = new Address(address)
    const now = backend.blockNow(sel)
    const hit = now === undefined ? undefined : backend.core.accountRead(now.header.stateRoot, at)
    if (hit !== undefined) return hit ?? undefined
    return blockOf(sel).then((block) => backend.core.accountAt(block.header.stateRoot, at))
  }

  /** `f` of the account, without a promise when the account is at hand */
  const withAccount = <T>(a: ReturnType<typeof accountOf>, f: (account: Account | undefined) => T): T | Promise<T> =>
    a instanceof Promise ? a.then(f) : f(a)

  /** resolveBlock with coreth's swallowed errors (a failed lookup is "no block"). */
  async function quietBlock(sel: BlockSelector): Promise<ResolvedBlock | null> {
    try {
      return await backend.resolveBlock(sel)
    } catch {
      return null
    }
  }

  /** An accepted tx: its block, position and decoded form. */
  const blocks = new DecodedBlocks(backend.core, common)
  async function acceptedTx(hash: Uint8Array) {
    const loc = await backend.core.getTxLocation(hash)
    if (loc === undefined) return undefined
    const found = await blocks.tx(loc.blockHash, loc.index)
    return found === undefined ? undefined : { loc, ...found }
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
      (p) => {
        const [address, sel] = decodeArgs(p, [parseAddress, parseBlockNumberOrHash])
        return withAccount(accountOf(sel, address), (account) => qty(account?.balance ?? 0n))
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
        return withAccount(accountOf(sel, address), (account) => qty(account?.nonce ?? 0n))
      },
    ],
    [
      'eth_getProof',
      async (p) => {
        const [address, hexKeys, sel] = decodeArgs(p, [parseAddress, stringsArg, parseBlockNumberOrHash])
        await checkProofWindow(backend, sel)
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
        return b === null ? null : blockResult(common, b, fullTx)
      },
    ],
    [
      'eth_getBlockByHash',
      async (p) => {
        const [sel, fullTx] = decodeArgs(p, [hashSelector, fullTxArg])
        const b = await backend.resolveBlock(sel)
        return b === null ? null : blockResult(common, b, fullTx)
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
        return b === null ? null : txAt(common, b, index)
      },
    ],
    [
      'eth_getTransactionByBlockHashAndIndex',
      async (p) => {
        const [sel, index] = decodeArgs(p, [hashSelector, indexArg])
        const b = await quietBlock(sel)
        return b === null ? null : txAt(common, b, index)
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
        return b === null ? null : blockReceipts(backend, b)
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
