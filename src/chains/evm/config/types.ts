/**
 * The C chain's configuration (`<chain-config-dir>/C/config.json`), one camelCase field per reference key
 * (reference/cchain.md section 7; coreth plugin/evm/config). Durations are milliseconds (`…Ms`); `null` means
 * "unset" where the reference uses a pointer. Keys the reference accepts but Firn does not act on are kept so
 * getVMConfig shows them as the reference would.
 */
export interface EvmConfig {
  /** gas-target: desired ACP-176 gas/s target for blocks this node builds (null: the parent's) */
  gasTarget: number | null
  /** min-delay-target: desired ACP-226 minimum block delay in ms (null: the parent's) */
  minDelayTarget: number | null
  /** admin-api-enabled / admin-api-dir: the chain admin API (/ext/bc/C/admin) and its profile dir */
  adminApiEnabled: boolean
  adminApiDir: string
  /** warp-api-enabled: adds warp_* to /rpc */
  warpApiEnabled: boolean
  /** eth-apis: enabled services, legacy names already mapped to current ones (replaces the default list) */
  ethApis: readonly string[]
  continuousProfilerDir: string
  continuousProfilerFrequencyMs: number
  continuousProfilerMaxFiles: number
  /** rpc-gas-cap: gas cap of eth_call / eth_estimateGas */
  rpcGasCap: number
  /** rpc-tx-fee-cap: fee cap (AVAX) for eth_sendTransaction / signTransaction */
  rpcTxFeeCap: number
  trieCleanCache: number
  trieDirtyCache: number
  trieDirtyCommitTarget: number
  triePrefetcherParallelism: number
  snapshotCache: number
  preimagesEnabled: boolean
  snapshotWait: boolean
  snapshotVerificationEnabled: boolean
  /** pruning-enabled: false = archive node */
  pruningEnabled: boolean
  acceptedQueueLimit: number
  /** commit-interval: blocks between trie commits (4096; fixed on mainnet/Fuji) */
  commitInterval: number
  allowMissingTries: boolean
  populateMissingTries: number | null
  populateMissingTriesParallelism: number
  pruneWarpDbEnabled: boolean
  /** historical-proof-query-window: eth_getProof window on archive nodes (0 = unlimited) */
  historicalProofQueryWindow: number
  metricsExpensiveEnabled: boolean
  /** local-txs-enabled: RPC-submitted txs are "local" in the tx pool */
  localTxsEnabled: boolean
  priceOptionsSlowFeePercentage: number
  priceOptionsFastFeePercentage: number
  /** price-options-max-tip, wei */
  priceOptionsMaxTip: number
  /** tx-pool-*: see the tx pool (src/chains/evm/txpool) */
  txPoolPriceLimit: number
  txPoolPriceBump: number
  txPoolAccountSlots: number
  txPoolGlobalSlots: number
  txPoolAccountQueue: number
  txPoolGlobalQueue: number
  txPoolLifetimeMs: number
  /** api-max-duration: per-request deadline and eth_call EVM timeout (0 = none) */
  apiMaxDurationMs: number
  wsCpuRefillRateMs: number
  wsCpuMaxStoredMs: number
  /** api-max-blocks-per-request: eth_getLogs range limit (0 = none) */
  apiMaxBlocksPerRequest: number
  allowUnfinalizedQueries: boolean
  allowUnprotectedTxs: boolean
  /** allow-unprotected-tx-hashes: lowercase 0x hashes */
  allowUnprotectedTxHashes: readonly string[] | null
  keystoreDirectory: string
  keystoreExternalSigner: string
  keystoreInsecureUnlockAllowed: boolean
  pushGossipPercentStake: number
  pushGossipNumValidators: number
  pushGossipNumPeers: number
  pushRegossipNumValidators: number
  pushRegossipNumPeers: number
  pushGossipFrequencyMs: number
  pullGossipFrequencyMs: number
  regossipFrequencyMs: number
  /** log-level: geth level name ("info") */
  logLevel: string
  logJsonFormat: boolean
  offlinePruningEnabled: boolean
  offlinePruningBloomFilterSize: number
  offlinePruningDataDirectory: string
  maxOutboundActiveRequests: number
  /** state-sync-enabled: null = state sync only if the local chain is at height 0 */
  stateSyncEnabled: boolean | null
  stateSyncSkipResume: boolean
  stateSyncServerTrieCache: number
  stateSyncIds: string
  stateSyncCommitInterval: number
  stateSyncMinBlocks: number
  stateSyncRequestSize: number
  inspectDatabase: boolean
  skipUpgradeCheck: boolean
  acceptedCacheSize: number
  /** transaction-history: blocks of tx index kept (0 = all) */
  transactionHistory: number
  /** state-history: state kept on pruning nodes; also the eth_getProof window there */
  stateHistory: number
  skipTxIndexing: boolean
  /** warp-off-chain-messages: lowercase 0x hex */
  warpOffChainMessages: readonly string[] | null
  /** http-body-limit: bytes (0 = the 5 MiB server default) */
  httpBodyLimit: number
  batchRequestLimit: number
  batchResponseMaxSize: number
  /** state-scheme: "hash" (default), "firewood" or "path" */
  stateScheme: string
  /** rpc-evm-timeout (Firn; geth's rpc.evmtimeout): EVM time of eth_call, estimateGas, createAccessList, 0 = none */
  rpcEvmTimeoutMs: number
  /** rpc-trace-max-timeout (Firn): the most a debug_trace* caller's `timeout` may ask for, 0 = no cap */
  rpcTraceMaxTimeoutMs: number
  /** ws-max-connections / -per-ip (Firn): open /ws connections of the chain, in all and per client IP */
  wsMaxConnections: number
  wsMaxConnectionsPerIp: number
  /** ws-max-subscriptions / -per-ip (Firn): eth_subscribe subscriptions of the chain, in all and per client IP */
  wsMaxSubscriptions: number
  wsMaxSubscriptionsPerIp: number
  /** max-filters / -per-ip (Firn): installed eth_new*Filter filters, in all and per client IP */
  maxFilters: number
  maxFiltersPerIp: number
}
