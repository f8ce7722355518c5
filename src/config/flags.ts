/**
 * The flag table: the reference node's flag names and defaults (reference/node-api.md section 9), plus Firn's
 * own (`--dev`, `--inspect-actors`). Values come from flags > env vars (`FIRN_<FLAG>`) > the config file.
 * Defaults that name other flags use `$DATA_DIR`, expanded to `--data-dir`.
 */
export type FlagKind = 'string' | 'bool' | 'uint' | 'float' | 'list' | 'intList' | 'duration'

export interface FlagSpec {
  kind: FlagKind
  default: string | boolean | number | string[] | number[]
  help: string
}

const f = (kind: FlagKind, def: FlagSpec['default'], help: string): FlagSpec => ({ kind, default: def, help })

export const FLAGS = {
  version: f('bool', false, 'Print the version and quit'),
  'version-json': f('bool', false, 'Print the version as JSON and quit'),
  dev: f('bool', false, 'Development node: local network, this node the only validator, admin API on'),
  'config-file': f('string', '', 'JSON file of flag values keyed by flag name'),
  'config-file-content': f('string', '', 'Base64 of the config file (instead of --config-file)'),
  'config-file-content-type': f('string', 'json', 'Format of --config-file-content (json)'),
  'data-dir': f('string', '$HOME/.firn', 'Base directory of everything the node writes'),
  'network-id': f('string', 'local', 'Network: mainnet, fuji (testnet), local, testing, or a number / network-<n>'),
  'http-host': f('string', '127.0.0.1', 'Address of the HTTP API server (empty = all interfaces)'),
  'http-port': f('uint', 9650, 'Port of the HTTP API server (0 = pick a free port)'),
  'http-allowed-origins': f('string', '*', 'Whitespace-separated origins allowed by CORS'),
  'http-allowed-hosts': f('list', ['localhost'], 'Comma-separated Host names accepted (* = any)'),
  'http-trusted-origins': f(
    'string',
    '',
    "Whitespace-separated origins of the web pages allowed on /ext/admin, a chain's /admin, WebSockets and the account/debug methods (* = any; default: the loopback origins under --dev, else --http-allowed-origins)",
  ),
  'http-tls-enabled': f('bool', false, 'Serve the HTTP API over HTTPS (TLS 1.2 or later)'),
  'http-tls-cert-file': f(
    'string',
    '',
    'PEM certificate of the HTTPS server (ignored if --http-tls-cert-file-content is set)',
  ),
  'http-tls-cert-file-content': f('string', '', 'Base64 of the PEM certificate of the HTTPS server'),
  'http-tls-key-file': f(
    'string',
    '',
    'PEM private key of the HTTPS server (ignored if --http-tls-key-file-content is set)',
  ),
  'http-tls-key-file-content': f('string', '', 'Base64 of the PEM private key of the HTTPS server'),
  'http-shutdown-timeout': f('duration', 10_000, 'How long shutdown waits for in-flight HTTP calls'),
  'http-max-connections': f(
    'uint',
    4096,
    'Firn: open TCP connections on the HTTP port, WebSockets included (0 = no cap)',
  ),
  'http-max-connections-per-ip': f(
    'uint',
    256,
    'Firn: open TCP connections on the HTTP port per client IP (0 = no cap)',
  ),
  'http-max-pipelined-requests': f(
    'uint',
    32,
    'Firn: requests that may wait on one connection behind an unsent reply; one more closes it',
  ),
  'api-rate-limit': f(
    'uint',
    1000,
    'Firn: HTTP requests and WebSocket messages per second per client IP (0 = no limit; default 0 with --dev)',
  ),
  'api-admin-enabled': f('bool', false, 'Serve /ext/admin'),
  'api-info-enabled': f('bool', true, 'Serve /ext/info'),
  'api-health-enabled': f('bool', true, 'Serve /ext/health'),
  'health-check-frequency': f('duration', 30_000, 'Time between health checks'),
  'network-health-min-conn-peers': f(
    'uint',
    1,
    'Health: the network check fails with fewer connected peers (default 0 under --dev)',
  ),
  'api-metrics-enabled': f('bool', true, 'Serve /ext/metrics (Prometheus text) and keep the metrics it reports'),
  'staking-host': f('string', '', 'Address the P2P server binds (empty = all interfaces)'),
  'staking-port': f('uint', 9651, 'Port of the P2P server (0 = pick a free port)'),
  'staking-tls-key-file': f('string', '$DATA_DIR/staking/staker.key', 'Staking TLS key (PEM)'),
  'staking-tls-cert-file': f('string', '$DATA_DIR/staking/staker.crt', 'Staking TLS certificate (PEM)'),
  'staking-signer-key-file': f('string', '$DATA_DIR/staking/signer.key', 'BLS signer key (32 raw bytes)'),
  'public-ip': f('string', '', 'Public IP this node signs into its handshakes (default 127.0.0.1)'),
  'db-type': f('string', 'leveldb', 'Database: leveldb or memdb'),
  'db-dir': f('string', '$DATA_DIR/db', 'Database directory; the database lives in <db-dir>/<network name>'),
  'log-dir': f('string', '$DATA_DIR/logs', 'Directory of the log files'),
  'log-level': f('string', 'info', 'Level of written logs: verbo, debug, trace, info, warn, error, fatal, off'),
  'log-display-level': f('string', '', 'Level of displayed logs (default: --log-level)'),
  'profile-dir': f('string', '$DATA_DIR/profiles', 'Where profiles are written'),
  'plugin-dir': f('string', '$DATA_DIR/plugins', 'Directory of VM plugins'),
  'chain-config-dir': f('string', '$DATA_DIR/configs/chains', 'Directory of per-chain configs'),
  'chain-aliases-file': f('string', '$DATA_DIR/configs/chains/aliases.json', 'JSON {chainID: [aliases]}'),
  'genesis-file': f(
    'string',
    '',
    'Network genesis file (the reference format plus "chains"; on the local network only {"chains": [...]})',
  ),
  'genesis-file-content': f('string', '', 'Base64 of the genesis file (instead of --genesis-file)'),
  'track-subnets': f('list', [], 'Comma-separated subnet IDs to track'),
  'acp-support': f('intList', [], 'ACPs to support'),
  'acp-object': f('intList', [], 'ACPs to object to'),
  'uptime-requirement': f('float', 0.8, 'Fraction of time a validator must be online to be rewarded'),
  'sybil-protection-enabled': f('bool', true, 'When off, every connected peer is a validator'),
  'sybil-protection-disabled-weight': f('uint', 100, 'Weight of each validator when sybil protection is off'),
  'bootstrap-ips': f('list', [], 'Comma-separated IP:port of the bootstrap nodes'),
  'bootstrap-ids': f('list', [], 'Comma-separated NodeIDs of the bootstrap nodes'),
  'bootstrap-beacon-connection-timeout': f(
    'duration',
    60_000,
    'Warn when the beacons are not connected this long after start (bootstrapping waits on)',
  ),
  'network-ping-frequency': f('duration', 22_500, 'How often a Ping is sent to each peer'),
  'network-ping-timeout': f('duration', 30_000, 'A peer silent this long is dropped (ping timeout)'),
  'network-initial-timeout': f('duration', 5_000, 'Initial timeout of requests to peers (adaptive timeout)'),
  'network-minimum-timeout': f('duration', 2_000, 'Minimum adaptive timeout of requests to peers'),
  'network-maximum-timeout': f('duration', 10_000, 'Maximum adaptive timeout of requests to peers'),
  'network-timeout-halflife': f('duration', 5 * 60_000, 'Halflife of the latency average the timeout derives from'),
  'network-timeout-coefficient': f('float', 2, 'Adaptive timeout = coefficient x average latency (>= 1)'),
  'benchlist-halflife': f('duration', 60_000, "Halflife of a peer's failure probability on the benchlist"),
  'benchlist-bench-probability': f('float', 0.5, 'Failure probability above which a peer is benched'),
  'benchlist-unbench-probability': f('float', 0.2, 'Failure probability below which a benched peer is unbenched'),
  'benchlist-duration': f('duration', 5 * 60_000, 'Longest time a peer stays benched'),
  'snow-sample-size': f('uint', 20, 'Consensus poll sample size K, in stake units'),
  'snow-quorum-size': f('uint', 15, 'Sets both the preference and the confidence quorum sizes'),
  'snow-preference-quorum-size': f('uint', 15, 'Votes needed in a poll to set or keep a preference (alphaPreference)'),
  'snow-confidence-quorum-size': f('uint', 15, 'Votes needed in a poll to raise confidence (alphaConfidence)'),
  'snow-commit-threshold': f('uint', 20, 'Consecutive successful polls that finalize a block (beta)'),
  'snow-concurrent-repolls': f('uint', 4, 'Polls kept outstanding while blocks are processing'),
  'snow-optimal-processing': f('uint', 10, 'No block is built while this many blocks are processing'),
  'snow-max-processing': f('uint', 256, 'Health: most blocks processing at once'),
  'snow-max-time-processing': f('duration', 30_000, 'Health: longest time a block may stay processing'),
  'consensus-frontier-poll-frequency': f('duration', 100, 'How often an idle engine polls a peer for its frontier'),
  'consensus-app-concurrency': f('uint', 2, 'App requests and app gossip of a chain handled at once'),
  'dev-speed': f(
    'bool',
    false,
    "Local network only: the C chain starts with --dev's block timing (1 ms minimum delay, 25M gas/s target); its genesis hash then differs from the reference's",
  ),
  'tx-fee': f('uint', 1_000_000, 'Transaction fee in nAVAX (not mainnet/fuji)'),
  'create-asset-tx-fee': f('uint', 1_000_000, 'Asset creation fee in nAVAX (not mainnet/fuji)'),
  'process-context-file': f('string', '$DATA_DIR/process.json', 'Where {pid, uri, stakingAddress} is written'),
  'inspect-actors': f('bool', false, 'Attach @statelyai/inspect to the actor system (see docs/operations.md)'),
  'inspect-port': f('uint', 8080, 'Port of the local inspector relay used by --inspect-actors'),
  'api-dashboard-enabled': f(
    'bool',
    false,
    'Serve the live dashboard at /ext/dashboard (unset: on with --dev or a loopback --http-host, see docs/operations.md)',
  ),
} satisfies Record<string, FlagSpec>

export type FlagName = keyof typeof FLAGS

export const isFlagName = (name: string): name is FlagName => Object.hasOwn(FLAGS, name)

/** `http-port` -> `FIRN_HTTP_PORT` */
export const envVarName = (flag: string): string => `FIRN_${flag.toUpperCase().replaceAll('-', '_')}`
