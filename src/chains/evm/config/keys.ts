/**
 * Every key of coreth's C-chain config file (plugin/evm/config: config.go + default_config.go), its Go type
 * (which decides the JSON it accepts and the wording of a mismatch), its Firn field name and its default.
 * Durations are kept in milliseconds; `null` defaults are "unset" pointers (omitted or null in getVMConfig).
 */

export type Kind =
  | 'bool'
  | 'string'
  | 'float64'
  | 'int'
  | 'int64'
  | 'uint64'
  | 'uint16'
  | 'duration'
  | 'strings'
  | 'hashes'
  | 'bytesList'
  | 'ptrUint64'
  | 'ptrGas'
  | 'ptrBool'

export interface KeySpec {
  key: string
  field: string
  kind: Kind
  default: unknown
  /** Go's `omitempty`: left out of getVMConfig when zero/unset */
  omitEmpty: boolean
}

const k = (key: string, field: string, kind: Kind, def: unknown, omitEmpty = false): KeySpec => ({
  key,
  field,
  kind,
  default: def,
  omitEmpty,
})

export const EIP1820_TX_HASH = '0xfefb2da535e927b85fe68eb81cb2e4a5827c905f78381a01ef2322aa9b0aee8e'
export const DEFAULT_ETH_APIS: readonly string[] = [
  'eth',
  'eth-filter',
  'net',
  'web3',
  'internal-eth',
  'internal-blockchain',
  'internal-transaction',
]

/** In the reference's struct order (the order getVMConfig prints). */
export const KEYS: readonly KeySpec[] = [
  k('gas-target', 'gasTarget', 'ptrGas', null, true),
  k('min-delay-target', 'minDelayTarget', 'ptrUint64', null, true),
  k('admin-api-enabled', 'adminApiEnabled', 'bool', false),
  k('admin-api-dir', 'adminApiDir', 'string', ''),
  k('warp-api-enabled', 'warpApiEnabled', 'bool', false),
  k('eth-apis', 'ethApis', 'strings', DEFAULT_ETH_APIS),
  k('continuous-profiler-dir', 'continuousProfilerDir', 'string', ''),
  k('continuous-profiler-frequency', 'continuousProfilerFrequencyMs', 'duration', 15 * 60_000),
  k('continuous-profiler-max-files', 'continuousProfilerMaxFiles', 'int', 5),
  k('rpc-gas-cap', 'rpcGasCap', 'uint64', 50_000_000),
  k('rpc-tx-fee-cap', 'rpcTxFeeCap', 'float64', 100),
  k('trie-clean-cache', 'trieCleanCache', 'int', 512),
  k('trie-dirty-cache', 'trieDirtyCache', 'int', 512),
  k('trie-dirty-commit-target', 'trieDirtyCommitTarget', 'int', 20),
  k('trie-prefetcher-parallelism', 'triePrefetcherParallelism', 'int', 16),
  k('snapshot-cache', 'snapshotCache', 'int', 256),
  k('preimages-enabled', 'preimagesEnabled', 'bool', false),
  k('snapshot-wait', 'snapshotWait', 'bool', false),
  k('snapshot-verification-enabled', 'snapshotVerificationEnabled', 'bool', false),
  k('pruning-enabled', 'pruningEnabled', 'bool', true),
  k('accepted-queue-limit', 'acceptedQueueLimit', 'int', 64),
  k('commit-interval', 'commitInterval', 'uint64', 4096),
  k('allow-missing-tries', 'allowMissingTries', 'bool', false),
  k('populate-missing-tries', 'populateMissingTries', 'ptrUint64', null, true),
  k('populate-missing-tries-parallelism', 'populateMissingTriesParallelism', 'int', 1024),
  k('prune-warp-db-enabled', 'pruneWarpDbEnabled', 'bool', false),
  k('historical-proof-query-window', 'historicalProofQueryWindow', 'uint64', 43_200, true),
  k('metrics-expensive-enabled', 'metricsExpensiveEnabled', 'bool', true),
  k('local-txs-enabled', 'localTxsEnabled', 'bool', false),
  k('price-options-slow-fee-percentage', 'priceOptionsSlowFeePercentage', 'uint64', 95),
  k('price-options-fast-fee-percentage', 'priceOptionsFastFeePercentage', 'uint64', 105),
  k('price-options-max-tip', 'priceOptionsMaxTip', 'uint64', 20_000_000_000),
  k('tx-pool-price-limit', 'txPoolPriceLimit', 'uint64', 1),
  k('tx-pool-price-bump', 'txPoolPriceBump', 'uint64', 10),
  k('tx-pool-account-slots', 'txPoolAccountSlots', 'uint64', 16),
  k('tx-pool-global-slots', 'txPoolGlobalSlots', 'uint64', 5120),
  k('tx-pool-account-queue', 'txPoolAccountQueue', 'uint64', 64),
  k('tx-pool-global-queue', 'txPoolGlobalQueue', 'uint64', 1024),
  k('tx-pool-lifetime', 'txPoolLifetimeMs', 'duration', 10 * 60_000),
  k('api-max-duration', 'apiMaxDurationMs', 'duration', 0),
  k('ws-cpu-refill-rate', 'wsCpuRefillRateMs', 'duration', 0),
  k('ws-cpu-max-stored', 'wsCpuMaxStoredMs', 'duration', 0),
  k('api-max-blocks-per-request', 'apiMaxBlocksPerRequest', 'int64', 0),
  k('allow-unfinalized-queries', 'allowUnfinalizedQueries', 'bool', false),
  k('allow-unprotected-txs', 'allowUnprotectedTxs', 'bool', false),
  k('allow-unprotected-tx-hashes', 'allowUnprotectedTxHashes', 'hashes', [EIP1820_TX_HASH]),
  k('keystore-directory', 'keystoreDirectory', 'string', ''),
  k('keystore-external-signer', 'keystoreExternalSigner', 'string', ''),
  k('keystore-insecure-unlock-allowed', 'keystoreInsecureUnlockAllowed', 'bool', false),
  k('push-gossip-percent-stake', 'pushGossipPercentStake', 'float64', 0.9),
  k('push-gossip-num-validators', 'pushGossipNumValidators', 'int', 100),
  k('push-gossip-num-peers', 'pushGossipNumPeers', 'int', 0),
  k('push-regossip-num-validators', 'pushRegossipNumValidators', 'int', 10),
  k('push-regossip-num-peers', 'pushRegossipNumPeers', 'int', 0),
  k('push-gossip-frequency', 'pushGossipFrequencyMs', 'duration', 100),
  k('pull-gossip-frequency', 'pullGossipFrequencyMs', 'duration', 1000),
  k('regossip-frequency', 'regossipFrequencyMs', 'duration', 30_000),
  k('log-level', 'logLevel', 'string', 'info'),
  k('log-json-format', 'logJsonFormat', 'bool', false),
  k('offline-pruning-enabled', 'offlinePruningEnabled', 'bool', false),
  k('offline-pruning-bloom-filter-size', 'offlinePruningBloomFilterSize', 'uint64', 512),
  k('offline-pruning-data-directory', 'offlinePruningDataDirectory', 'string', ''),
  k('max-outbound-active-requests', 'maxOutboundActiveRequests', 'int64', 16),
  k('state-sync-enabled', 'stateSyncEnabled', 'ptrBool', null),
  k('state-sync-skip-resume', 'stateSyncSkipResume', 'bool', false),
  k('state-sync-server-trie-cache', 'stateSyncServerTrieCache', 'int', 64),
  k('state-sync-ids', 'stateSyncIds', 'string', ''),
  k('state-sync-commit-interval', 'stateSyncCommitInterval', 'uint64', 16_384),
  k('state-sync-min-blocks', 'stateSyncMinBlocks', 'uint64', 300_000),
  k('state-sync-request-size', 'stateSyncRequestSize', 'uint16', 1024),
  k('inspect-database', 'inspectDatabase', 'bool', false),
  k('skip-upgrade-check', 'skipUpgradeCheck', 'bool', false),
  k('accepted-cache-size', 'acceptedCacheSize', 'int', 32),
  k('transaction-history', 'transactionHistory', 'uint64', 0),
  k('state-history', 'stateHistory', 'uint64', 32),
  k('skip-tx-indexing', 'skipTxIndexing', 'bool', false),
  k('warp-off-chain-messages', 'warpOffChainMessages', 'bytesList', null),
  k('http-body-limit', 'httpBodyLimit', 'uint64', 0),
  k('batch-request-limit', 'batchRequestLimit', 'uint64', 1000),
  k('batch-response-max-size', 'batchResponseMaxSize', 'uint64', 25_000_000),
  k('state-scheme', 'stateScheme', 'string', 'hash'),
  // Firn's own keys (coreth has none of these limits; docs/operations.md, docs/api.md)
  k('rpc-evm-timeout', 'rpcEvmTimeoutMs', 'duration', 5_000),
  k('rpc-trace-max-timeout', 'rpcTraceMaxTimeoutMs', 'duration', 30_000),
  k('ws-max-connections', 'wsMaxConnections', 'int', 4096),
  k('ws-max-connections-per-ip', 'wsMaxConnectionsPerIp', 'int', 128),
  k('ws-max-subscriptions', 'wsMaxSubscriptions', 'int', 10_000),
  k('ws-max-subscriptions-per-ip', 'wsMaxSubscriptionsPerIp', 'int', 1000),
  k('max-filters', 'maxFilters', 'int', 10_000),
  k('max-filters-per-ip', 'maxFiltersPerIp', 'int', 1000),
]

/** Keys the reference no longer recognises (reference/cchain.md section 7). */
export const REMOVED_KEYS: readonly string[] = [
  'coreth-admin-api-enabled',
  'coreth-admin-api-dir',
  'tx-regossip-frequency',
  'tx-lookup-limit',
  'snowman-api-enabled',
  'price-options-max-base-fee',
]

/** `eth-apis` names (reference/cchain.md 3.1). */
export const ETH_API_NAMES: readonly string[] = [
  ...DEFAULT_ETH_APIS,
  'internal-tx-pool',
  'internal-debug',
  'internal-account',
  'internal-personal',
  'debug',
  'debug-tracer',
  'debug-file-tracer',
  'debug-handler',
  'admin',
]

/** Pre geth 1.10.20 names, still accepted and mapped (coreth's legacyAPINames). */
export const LEGACY_API_NAMES: Readonly<Record<string, string>> = {
  'internal-public-eth': 'internal-eth',
  'internal-public-blockchain': 'internal-blockchain',
  'internal-public-transaction-pool': 'internal-transaction',
  'internal-public-tx-pool': 'internal-tx-pool',
  'internal-public-debug': 'internal-debug',
  'internal-private-debug': 'internal-debug',
  'internal-public-account': 'internal-account',
  'internal-private-personal': 'internal-personal',
  'public-eth': 'eth',
  'public-eth-filter': 'eth-filter',
  'private-admin': 'admin',
  'public-debug': 'debug',
  'private-debug': 'debug',
}

/** The known key closest to `key` by edit distance (for "did you mean"), if reasonably close. */
export function closestKey(key: string): string | undefined {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const spec of KEYS) {
    const d = editDistance(key.toLowerCase(), spec.key)
    if (d < bestDistance) {
      best = spec.key
      bestDistance = d
    }
  }
  return bestDistance <= Math.max(3, Math.floor(key.length / 3)) ? best : undefined
}

function editDistance(a: string, b: string): number {
  if (a.length > 200 || b.length > 200) return Number.POSITIVE_INFINITY
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = row
  }
  return prev[b.length]!
}
