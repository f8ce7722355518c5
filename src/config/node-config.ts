/**
 * NodeConfig: the frozen, validated configuration every module reads. `loadNodeConfig(argv, env)` checks
 * everything before anything is written; errors carry the reference's texts.
 */

import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { type SnowParams, validateSnowParams } from '../../actors/consensus/params.js'
import { LOOPBACK_ORIGINS } from '../api/http/origin-policy.js'
import { loadNetworkGenesis, type NetworkGenesis } from '../chains/genesis/load.js'
import { checkBenchlist, checkDirExists, deepFreeze, defaultPublicIp, isIpLiteral } from './config-checks.js'
import { dashboardEnabled } from './dashboard.js'
import type { FlagName } from './flags.js'
import { type HttpTlsConfig, httpTlsConfig } from './http-tls.js'
import { isPublicNetwork, NetworkId, networkName, parseNetworkId } from './networks.js'
import { ConfigError, collect, type RawConfig } from './sources.js'

export const LOG_LEVELS = ['VERBO', 'DEBUG', 'TRACE', 'INFO', 'WARN', 'ERROR', 'FATAL', 'OFF'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** Level names are accepted in any case; the reference's error text otherwise. */
export function parseLogLevel(text: string): LogLevel {
  const upper = text.toUpperCase() as LogLevel
  if (LOG_LEVELS.includes(upper)) return upper
  throw new ConfigError(`unknown log level: ${JSON.stringify(text)}`)
}

export interface NodeConfig {
  dev: boolean
  dataDir: string
  networkId: number
  networkName: string
  http: {
    host: string
    port: number
    allowedOrigins: string[]
    /** `--http-trusted-origins`: the pages allowed on the sensitive APIs (src/api/http/origin-policy.ts) */
    trustedOrigins: string[]
    allowedHosts: string[]
    shutdownTimeoutMs: number
    /** `--http-tls-*`: HTTPS */
    tls: HttpTlsConfig
    /** per-client limits (src/api/http/client-limits.ts): 0 = no cap */
    maxConnections: number
    maxConnectionsPerIp: number
    maxPipelinedRequests: number
    /** requests per second per client IP; 0 under --dev / --dev-speed unless set */
    rateLimit: number
  }
  api: { adminEnabled: boolean; infoEnabled: boolean; metricsEnabled: boolean }
  /** `--api-health-enabled`, `--health-check-frequency` (ms), `--network-health-min-conn-peers` */
  health: { enabled: boolean; checkFrequencyMs: number; minConnectedPeers: number }
  staking: {
    host: string
    port: number
    keyPath: string
    certPath: string
    keyExplicit: boolean
    certExplicit: boolean
    signerKeyPath: string
    signerExplicit: boolean
  }
  /** the IP this node signs into handshakes and reports in info.getNodeIP */
  publicIp: string
  db: { type: 'leveldb' | 'memdb'; dir: string; path: string }
  log: { dir: string; level: LogLevel; displayLevel: LogLevel }
  profileDir: string
  pluginDir: string
  pluginDirExplicit: boolean
  chainConfigDir: string
  chainAliasesFile: string
  chainAliasesFileExplicit: boolean
  /** `--genesis-file` / `--genesis-file-content`: the chains this node runs (C first) and, from a full genesis, its
   * validators (src/chains/genesis/load.ts) */
  genesis: NetworkGenesis
  trackSubnets: string[]
  acpSupport: number[]
  acpObject: number[]
  uptimeRequirement: number
  sybilProtection: { enabled: boolean; disabledWeight: number }
  bootstrap: { ips: string[]; ids: string[] }
  /** the adaptive request timeout, `--network-*-timeout`, `--network-timeout-*` (ms) */
  networkTimeout: { initialMs: number; minMs: number; maxMs: number; halflifeMs: number; coefficient: number }
  /** `--network-ping-frequency` / `--network-ping-timeout` (ms) */
  ping: { frequencyMs: number; timeoutMs: number }
  /** `--benchlist-*` (ms) */
  benchlist: { halflifeMs: number; benchProbability: number; unbenchProbability: number; benchDurationMs: number }
  /** `--snow-*`: the Snowman parameters, validated with the reference's texts */
  snow: SnowParams
  /** `--consensus-frontier-poll-frequency` (ms) */
  frontierPollMs: number
  /** `--consensus-app-concurrency`: app messages of a chain handled at once (>= 1) */
  appConcurrency: number
  /** `--bootstrap-beacon-connection-timeout` (ms): a chain still waiting for its beacons' stake warns after it */
  beaconConnectionTimeoutMs: number
  /** `--dev-speed`: the C chain uses --dev's block timing on the local network (Firn only) */
  devSpeed: boolean
  fees: { txFee: string; createAssetTxFee: string }
  processContextFile: string
  /** `--inspect-actors`; `origins`: the pages whose WebSocket the inspector accepts (loopback + trusted origins) */
  inspect: { enabled: boolean; port: number; origins: string[] }
  /** `--api-dashboard-enabled`, decided by src/config/dashboard.ts */
  dashboard: { enabled: boolean }
}

const PRIMARY_NETWORK_ID = '11111111111111111111111111111111LpoYY'

export function loadNodeConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): NodeConfig {
  return buildNodeConfig(collect(argv, env), env)
}

export function buildNodeConfig(raw: RawConfig, env: NodeJS.ProcessEnv): NodeConfig {
  const dev = raw.get<boolean>('dev')
  const home = env.HOME ?? homedir()
  const dataDirText = raw.isSet('data-dir') ? raw.get<string>('data-dir') : dev ? '$HOME/.firn/dev' : '$HOME/.firn'
  const dataDir = resolve(dataDirText.replaceAll('$HOME', home))
  const path = (name: FlagName) =>
    resolve(raw.get<string>(name).replaceAll('$DATA_DIR', dataDir).replaceAll('$HOME', home))

  if (dev && raw.isSet('network-id') && parseNetworkId(raw.get<string>('network-id')) !== NetworkId.local) {
    throw new ConfigError('--dev runs the local network; remove --network-id or set it to local')
  }
  const networkId = dev ? NetworkId.local : parseNetworkId(raw.get<string>('network-id'))

  const level = parseLogLevel(raw.get<string>('log-level'))
  const displayText = raw.get<string>('log-display-level')
  const displayLevel = displayText === '' ? level : parseLogLevel(displayText)

  const dbType = raw.get<string>('db-type')
  if (dbType !== 'leveldb' && dbType !== 'memdb') throw new ConfigError('db-type must be one of {leveldb, memdb}')

  const uptimeRequirement = isPublicNetwork(networkId) ? 0.8 : raw.get<number>('uptime-requirement')
  if (!(uptimeRequirement >= 0 && uptimeRequirement <= 1)) {
    throw new ConfigError('uptime requirement must be in the range [0, 1]')
  }

  const sybilEnabled = dev ? false : raw.get<boolean>('sybil-protection-enabled')
  if (!sybilEnabled && isPublicNetwork(networkId)) throw new ConfigError('sybil protection disabled on public network')
  const disabledWeight = raw.get<number>('sybil-protection-disabled-weight')
  if (!sybilEnabled && disabledWeight <= 0) throw new ConfigError('sybil protection disabled weights must be positive')

  const { acpSupport, acpObject } = checkAcps(raw.get<number[]>('acp-support'), raw.get<number[]>('acp-object'))
  const trackSubnets = checkTrackSubnets(raw.get<string[]>('track-subnets'))
  const bootstrap = checkBootstrap(raw.get<string[]>('bootstrap-ips'), raw.get<string[]>('bootstrap-ids'))
  const networkTimeout = checkNetworkTimeout({
    initialMs: raw.get<number>('network-initial-timeout'),
    minMs: raw.get<number>('network-minimum-timeout'),
    maxMs: raw.get<number>('network-maximum-timeout'),
    halflifeMs: raw.get<number>('network-timeout-halflife'),
    coefficient: raw.get<number>('network-timeout-coefficient'),
  })
  const ping = {
    frequencyMs: raw.get<number>('network-ping-frequency'),
    timeoutMs: raw.get<number>('network-ping-timeout'),
  }
  if (!(ping.frequencyMs > 0 && ping.frequencyMs < ping.timeoutMs)) {
    throw new ConfigError('--network-ping-frequency must be positive and less than --network-ping-timeout')
  }
  const benchlist = checkBenchlist({
    halflifeMs: raw.get<number>('benchlist-halflife'),
    benchProbability: raw.get<number>('benchlist-bench-probability'),
    unbenchProbability: raw.get<number>('benchlist-unbench-probability'),
    benchDurationMs: raw.get<number>('benchlist-duration'),
  })

  const snow = snowParams(raw)
  const frontierPollMs = raw.get<number>('consensus-frontier-poll-frequency')
  if (!(frontierPollMs > 0)) throw new ConfigError('--consensus-frontier-poll-frequency must be positive')
  const appConcurrency = raw.get<number>('consensus-app-concurrency')
  if (!(appConcurrency >= 1)) throw new ConfigError('--consensus-app-concurrency must be at least 1')
  const beaconConnectionTimeoutMs = raw.get<number>('bootstrap-beacon-connection-timeout')
  if (!(beaconConnectionTimeoutMs > 0)) throw new ConfigError('--bootstrap-beacon-connection-timeout must be positive')
  const devSpeed = raw.get<boolean>('dev-speed')
  if (devSpeed && networkId !== NetworkId.local) throw new ConfigError('--dev-speed runs only on the local network')

  const genesis = loadNetworkGenesis(
    {
      file: raw.get<string>('genesis-file') === '' ? '' : path('genesis-file'),
      content: raw.get<string>('genesis-file-content'),
    },
    { networkId, dev: dev || devSpeed, nowSec: Date.now() / 1000 },
  )

  const pluginDir = path('plugin-dir')
  if (raw.isSet('plugin-dir')) checkDirExists(pluginDir)

  const httpPort = raw.get<number>('http-port')
  const stakingPort = raw.get<number>('staking-port')
  for (const [name, port] of [
    ['http-port', httpPort],
    ['staking-port', stakingPort],
  ] as const) {
    if (port > 65535) throw new ConfigError(`${name} must be at most 65535, got ${port}`)
  }
  const stakingHost = raw.get<string>('staking-host')
  const publicIp = raw.get<string>('public-ip') || defaultPublicIp(stakingHost)
  if (!isIpLiteral(publicIp)) throw new ConfigError(`invalid public IP: ${JSON.stringify(publicIp)}`)

  const dbDir = path('db-dir')
  const adminExplicit = raw.isSet('api-admin-enabled')
  const origins = (name: 'http-allowed-origins' | 'http-trusted-origins') =>
    raw
      .get<string>(name)
      .split(/\s+/)
      .filter((s) => s !== '')
  const allowedOrigins = origins('http-allowed-origins')
  const trustedExplicit = raw.isSet('http-trusted-origins')
  // --dev: only pages of this machine drive the admin, account and debug APIs unless widened (docs/operations.md)
  const trustedOrigins = trustedExplicit
    ? origins('http-trusted-origins')
    : dev
      ? [...LOOPBACK_ORIGINS]
      : allowedOrigins
  return deepFreeze({
    dev,
    dataDir,
    networkId,
    networkName: networkName(networkId),
    http: {
      host: raw.get<string>('http-host'),
      port: httpPort,
      allowedOrigins,
      trustedOrigins,
      allowedHosts: raw.get<string[]>('http-allowed-hosts'),
      shutdownTimeoutMs: raw.get<number>('http-shutdown-timeout'),
      tls: httpTlsConfig(raw, path),
      maxConnections: raw.get<number>('http-max-connections'),
      maxConnectionsPerIp: raw.get<number>('http-max-connections-per-ip'),
      maxPipelinedRequests: raw.get<number>('http-max-pipelined-requests'),
      rateLimit: (dev || devSpeed) && !raw.isSet('api-rate-limit') ? 0 : raw.get<number>('api-rate-limit'),
    },
    api: {
      adminEnabled: dev && !adminExplicit ? true : raw.get<boolean>('api-admin-enabled'),
      infoEnabled: raw.get<boolean>('api-info-enabled'),
      metricsEnabled: raw.get<boolean>('api-metrics-enabled'),
    },
    health: healthConfig(raw, dev),
    staking: {
      host: stakingHost,
      port: stakingPort,
      keyPath: path('staking-tls-key-file'),
      certPath: path('staking-tls-cert-file'),
      keyExplicit: raw.isSet('staking-tls-key-file'),
      certExplicit: raw.isSet('staking-tls-cert-file'),
      signerKeyPath: path('staking-signer-key-file'),
      signerExplicit: raw.isSet('staking-signer-key-file'),
    },
    publicIp,
    db: { type: dbType, dir: dbDir, path: join(dbDir, dev ? 'dev' : networkName(networkId)) },
    log: { dir: path('log-dir'), level, displayLevel },
    profileDir: path('profile-dir'),
    pluginDir,
    pluginDirExplicit: raw.isSet('plugin-dir'),
    chainConfigDir: path('chain-config-dir'),
    chainAliasesFile: path('chain-aliases-file'),
    chainAliasesFileExplicit: raw.isSet('chain-aliases-file'),
    genesis,
    trackSubnets,
    acpSupport,
    acpObject,
    uptimeRequirement,
    sybilProtection: { enabled: sybilEnabled, disabledWeight },
    bootstrap,
    networkTimeout,
    ping,
    benchlist,
    snow,
    frontierPollMs,
    appConcurrency,
    beaconConnectionTimeoutMs,
    devSpeed,
    fees: {
      txFee: String(raw.get<number>('tx-fee')),
      createAssetTxFee: String(raw.get<number>('create-asset-tx-fee')),
    },
    processContextFile: path('process-context-file'),
    inspect: {
      enabled: raw.get<boolean>('inspect-actors'),
      port: raw.get<number>('inspect-port'),
      origins: [...LOOPBACK_ORIGINS, ...(trustedExplicit ? trustedOrigins : [])],
    },
    dashboard: {
      enabled: dashboardEnabled(
        raw.isSet('api-dashboard-enabled') ? raw.get<boolean>('api-dashboard-enabled') : undefined,
        dev,
        raw.get<string>('http-host'),
      ),
    },
  })
}

/** The health flags; a lone `--dev` validator has no peers, so it needs none unless told otherwise. */
function healthConfig(raw: RawConfig, dev: boolean): NodeConfig['health'] {
  const checkFrequencyMs = raw.get<number>('health-check-frequency')
  if (!(checkFrequencyMs > 0)) throw new ConfigError('health-check-frequency must be positive')
  const minPeers = raw.get<number>('network-health-min-conn-peers')
  return {
    enabled: raw.get<boolean>('api-health-enabled'),
    checkFrequencyMs,
    minConnectedPeers: dev && !raw.isSet('network-health-min-conn-peers') ? 0 : minPeers,
  }
}

/** ACPs that are already activated: objecting to one of them is refused (the reference's ScheduledACPs is empty). */
const SCHEDULED_ACPS = new Set<number>()

function checkAcps(support: number[], object: number[]) {
  for (const acp of [...support, ...object]) {
    if (acp < 0 || acp > 0x7fffffff) throw new ConfigError(`invalid ACP: ${acp}`)
  }
  const s = [...new Set(support)].sort((a, b) => a - b)
  const o = [...new Set(object)].sort((a, b) => a - b)
  if (s.some((a) => o.includes(a))) throw new ConfigError('supporting and objecting to the same ACP')
  if (o.some((a) => SCHEDULED_ACPS.has(a))) throw new ConfigError('objecting to enabled ACP')
  return { acpSupport: s, acpObject: o }
}

const CB58_ID = /^[1-9A-HJ-NP-Za-km-z]{1,60}$/

function checkTrackSubnets(ids: string[]): string[] {
  for (const id of ids) {
    if (id === PRIMARY_NETWORK_ID) throw new ConfigError('cannot track primary network')
    if (!CB58_ID.test(id)) throw new ConfigError(`couldn't parse subnetID ${JSON.stringify(id)}: invalid subnet ID`)
  }
  return [...new Set(ids)]
}

function checkBootstrap(ips: string[], ids: string[]) {
  if (ips.length > 0 && ids.length === 0) throw new ConfigError('set "bootstrap-ips" but didn\'t set "bootstrap-ids"')
  if (ids.length > 0 && ips.length === 0) throw new ConfigError('set "bootstrap-ids" but didn\'t set "bootstrap-ips"')
  if (ips.length !== ids.length) {
    throw new ConfigError(
      `expected the number of bootstrapIPs (${ips.length}) to match the number of bootstrapIDs (${ids.length})`,
    )
  }
  for (const ip of ips) {
    if (!/^(\[[0-9a-fA-F:.]+\]|[0-9.]+):[0-9]{1,5}$/.test(ip)) {
      throw new ConfigError(`couldn't parse bootstrap ip ${ip}: not an ip:port`)
    }
  }
  for (const id of ids) {
    if (!id.startsWith('NodeID-')) {
      throw new ConfigError(`couldn't parse bootstrap peer id ${id}: ID: ${id} is missing the prefix: NodeID-`)
    }
  }
  return { ips, ids }
}

function checkNetworkTimeout(t: NodeConfig['networkTimeout']): NodeConfig['networkTimeout'] {
  if (!(t.minMs > 0)) throw new ConfigError('--network-minimum-timeout must be positive')
  if (t.maxMs < t.minMs) {
    throw new ConfigError('--network-maximum-timeout must be at least --network-minimum-timeout')
  }
  if (t.initialMs < t.minMs || t.initialMs > t.maxMs) {
    throw new ConfigError(
      '--network-initial-timeout must be in the range [--network-minimum-timeout, --network-maximum-timeout]',
    )
  }
  if (!(t.halflifeMs > 0)) throw new ConfigError('--network-timeout-halflife must be positive')
  if (!(t.coefficient >= 1)) throw new ConfigError('--network-timeout-coefficient must be >= 1')
  return t
}

/** The snow flags; `--snow-quorum-size` sets both quorums unless they are given themselves (the reference). */
function snowParams(raw: RawConfig): SnowParams {
  const quorum = raw.isSet('snow-quorum-size') ? raw.get<number>('snow-quorum-size') : undefined
  const pick = (name: 'snow-preference-quorum-size' | 'snow-confidence-quorum-size'): number =>
    raw.isSet(name) || quorum === undefined ? raw.get<number>(name) : quorum
  const p: SnowParams = {
    k: raw.get<number>('snow-sample-size'),
    alphaPreference: pick('snow-preference-quorum-size'),
    alphaConfidence: pick('snow-confidence-quorum-size'),
    beta: raw.get<number>('snow-commit-threshold'),
    concurrentRepolls: raw.get<number>('snow-concurrent-repolls'),
    optimalProcessing: raw.get<number>('snow-optimal-processing'),
    maxOutstandingItems: raw.get<number>('snow-max-processing'),
    maxItemProcessingTimeMs: raw.get<number>('snow-max-time-processing'),
  }
  const invalid = validateSnowParams(p)
  if (invalid !== null) throw new ConfigError(invalid)
  return p
}
