/**
 * What the C chain's JSON-RPC namespaces (eth, net, web3, txpool, personal, debug, filters) read and call: the
 * chain VM (src/chains/evm/vm.ts) implements it. Methods never touch the executor's pending blocks directly:
 * `resolveBlock` applies the reference's block-tag and finality rules (reference/cchain.md 3.2).
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Observable } from 'rxjs'
import type { EvmConfig } from '../config.js'
import type { AcceptedEvent, EvmChainCore } from '../exec/chain.js'
import type { AvaHeader } from '../header.js'
import type { EvmPreset } from '../rules/presets.js'
import type { TxPool } from '../txpool/pool.js'
import type { BlockSelector } from './hexutil.js'

/** Tx admission: a local submission into the chain's pool; resolves to the tx hash or throws the pool's error. */
export type SubmitTransaction = (tx: TypedTransaction) => Promise<string>

/** A block found for a query: accepted (canonical) or, with allow-unfinalized-queries, still processing. */
export interface ResolvedBlock {
  hash: Uint8Array
  header: AvaHeader
  /** the block's RLP (decode with decodeBlock from chains/evm/header.ts) */
  rlp: Uint8Array
  accepted: boolean
}

export interface EthBackend {
  /** EVM chain id (43112 on local) */
  readonly chainId: bigint
  readonly config: EvmConfig
  readonly preset: EvmPreset
  readonly core: EvmChainCore
  readonly pool: TxPool
  /** `web3_clientVersion` */
  readonly clientVersion: string
  /**
   * The block a selector names: tags per reference 3.2, numbers on the canonical chain, hashes of accepted (or,
   * when allowed, processing) blocks. null when there is none; throws -32000 `cannot query unfinalized data` for
   * a number above the last accepted block or a hash of a block not accepted yet (unless allowed).
   */
  resolveBlock(sel: BlockSelector): Promise<ResolvedBlock | null>
  /** resolveBlock's answer when it needs no lookup (a tag but `earliest`); else undefined */
  blockNow(sel: BlockSelector): ResolvedBlock | undefined
  /** the block `latest` names (last accepted; the preferred head with allow-unfinalized-queries) */
  latest(): ResolvedBlock
  /** the last accepted block */
  lastAccepted(): ResolvedBlock
  /** base fee a block built now on `latest` would have (eth_baseFee) */
  estimateNextBaseFee(): bigint
  /** base fee a child of `parent` built now would have (eth_feeHistory's last entry after the head) */
  estimateBaseFeeAfter(parent: AvaHeader): bigint
  /** add a tx to the pool as a local submission; resolves to its hash or throws the pool's error */
  submitTransaction: SubmitTransaction
  /** accepted blocks, in order (newHeads, logs, filters, newAcceptedTransactions) */
  readonly accepted$: Observable<AcceptedEvent>
  /** hashes of txs that became executable in the pool (newPendingTransactions) */
  readonly pendingTx$: Observable<string>
  /** ms wall clock */
  now(): number
}
