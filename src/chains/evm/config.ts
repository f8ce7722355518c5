import { FirnError } from '../../runtime/errors.js'
import { DecodeError, decodeValue } from './config/decode.js'
import { formatGoDuration, GoDurationError } from './config/go-duration.js'
import { GoJsonSyntaxError, type JsonNode, parseGoJson } from './config/go-json.js'
import { closestKey, ETH_API_NAMES, KEYS, type KeySpec, LEGACY_API_NAMES, REMOVED_KEYS } from './config/keys.js'
import type { EvmConfig } from './config/types.js'

export type { EvmConfig } from './config/types.js'

/** A config the node must not start with; the message is the whole explanation. */
export class EvmConfigError extends FirnError {
  override readonly name = 'EvmConfigError'
}

export interface EvmConfigOptions {
  /** the network id; mainnet (1) and Fuji (5) pin the commit intervals */
  networkId?: number
}

const PRODUCTION_NETWORK_IDS = new Set([1, 5])
const BY_KEY = new Map(KEYS.map((s) => [s.key, s]))
const BY_FOLDED_KEY = new Map(KEYS.map((s) => [s.key.toLowerCase(), s]))

/** The reference's defaults (a fresh frozen object). */
export function defaultEvmConfig(): EvmConfig {
  const out: Record<string, unknown> = {}
  for (const spec of KEYS) out[spec.field] = Array.isArray(spec.default) ? [...spec.default] : spec.default
  return freeze(out as unknown as EvmConfig)
}

/** Parses and checks the file's text; an empty text gives the defaults. Throws EvmConfigError. */
export function parseEvmConfig(text: string, opts: EvmConfigOptions = {}): EvmConfig {
  const out: Record<string, unknown> = { ...defaultEvmConfig() }
  if (text.length > 0) {
    const wrap = (err: string) => new EvmConfigError(`failed to unmarshal config ${text}: ${err}`)
    let root: JsonNode
    try {
      root = parseGoJson(text)
    } catch (e) {
      if (e instanceof GoJsonSyntaxError) throw wrap(e.message)
      throw e
    }
    if (root.kind !== 'null' && root.kind !== 'object') {
      throw wrap(`json: cannot unmarshal ${root.kind} into Go value of type config.Config`)
    }
    for (const [key, node] of root.kind === 'object' ? root.members : []) {
      const spec = lookupKey(key)
      try {
        const value = decodeValue(spec, node)
        if (value !== undefined) out[spec.field] = value
      } catch (e) {
        if (e instanceof DecodeError || e instanceof GoDurationError) {
          throw e.message.startsWith(`${spec.key}: `) ? new EvmConfigError(e.message) : wrap(e.message)
        }
        throw e
      }
    }
  }
  const config = out as unknown as EvmConfig
  validate(config, opts.networkId)
  return freeze(config)
}

/**
 * The EVM time limit of eth_call, eth_estimateGas and eth_createAccessList in ms (0 = none): `rpc-evm-timeout`
 * (Firn, 5 s as geth's rpc.evmtimeout), or `api-max-duration` when that is set and shorter (coreth's only one).
 */
export function evmCallTimeoutMs(c: EvmConfig): number {
  const own = c.rpcEvmTimeoutMs
  const api = c.apiMaxDurationMs
  if (own > 0 && api > 0) return Math.min(own, api)
  return own > 0 ? own : api
}

/** The enabled services with legacy names mapped to current ones (what coreth registers). */
export function resolveEthApis(names: readonly string[]): Set<string> {
  return new Set(names.map((n) => LEGACY_API_NAMES[n] ?? n))
}

/**
 * The config with the reference's key names and JSON encoding, as the chain admin API's getVMConfig returns
 * it under `config`: durations as Go strings ("10m0s"), `omitempty` keys left out when zero or unset.
 */
export function evmConfigToVmConfig(config: EvmConfig): Record<string, unknown> {
  const fields = config as unknown as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const spec of KEYS) {
    const value = fields[spec.field]
    if (spec.omitEmpty && (value === null || value === 0)) continue
    out[spec.key] = spec.kind === 'duration' ? formatGoDuration(BigInt(Math.round(Number(value) * 1e6))) : value
  }
  return out
}

function lookupKey(key: string): KeySpec {
  const spec = BY_KEY.get(key) ?? BY_FOLDED_KEY.get(key.toLowerCase())
  if (spec !== undefined) return spec
  const shown = JSON.stringify(key.length > 100 ? `${key.slice(0, 100)}…` : key)
  if (REMOVED_KEYS.includes(key.toLowerCase())) {
    throw new EvmConfigError(`C-chain config key ${shown} was removed from the reference and is no longer recognised`)
  }
  const near = closestKey(key)
  throw new EvmConfigError(
    `unknown C-chain config key ${shown}${near === undefined ? '' : ` (did you mean ${JSON.stringify(near)}?)`}`,
  )
}

/** The reference's config checks (config.validate and the VM's start-up checks), with its texts. */
function validate(c: EvmConfig, networkId: number | undefined): void {
  const fail = (message: string): never => {
    throw new EvmConfigError(message)
  }
  if (networkId !== undefined && PRODUCTION_NETWORK_IDS.has(networkId)) {
    if (c.stateScheme !== 'firewood' && c.commitInterval !== 4096) {
      fail(`cannot use non-default commit interval on production network: got ${c.commitInterval}, expected 4096`)
    }
    if (c.stateSyncCommitInterval !== 16_384) {
      fail(`cannot start non-local network with syncable interval ${c.stateSyncCommitInterval} different than 16384`)
    }
  }
  if (c.populateMissingTries !== null && (c.offlinePruningEnabled || c.pruningEnabled)) {
    fail(
      `cannot enable populate missing tries while offline pruning (enabled: ${c.offlinePruningEnabled})/pruning (enabled: ${c.pruningEnabled}) are enabled`,
    )
  }
  if (c.populateMissingTries !== null && c.populateMissingTriesParallelism < 1) {
    fail(
      `cannot enable populate missing tries without at least one reader (parallelism: ${c.populateMissingTriesParallelism})`,
    )
  }
  if (!c.pruningEnabled && c.offlinePruningEnabled) fail('cannot run offline pruning while pruning is disabled')
  if (c.pruningEnabled && c.commitInterval === 0) fail('cannot use commit interval of 0 with pruning enabled')
  if (c.pruningEnabled && c.stateHistory === 0) fail('cannot use state history of 0 with pruning enabled')
  if (c.pushGossipPercentStake < 0 || c.pushGossipPercentStake > 1) {
    fail(`push-gossip-percent-stake is ${c.pushGossipPercentStake.toFixed(6)} but must be in the range [0, 1]`)
  }
  for (const name of resolveEthApis(c.ethApis)) {
    if (!ETH_API_NAMES.includes(name)) fail(`API service ${name} not found`)
  }
  for (const [key, value] of [
    ['ws-max-connections', c.wsMaxConnections],
    ['ws-max-connections-per-ip', c.wsMaxConnectionsPerIp],
    ['ws-max-subscriptions', c.wsMaxSubscriptions],
    ['ws-max-subscriptions-per-ip', c.wsMaxSubscriptionsPerIp],
    ['max-filters', c.maxFilters],
    ['max-filters-per-ip', c.maxFiltersPerIp],
  ] as const) {
    if (value < 0) fail(`${key} is ${value} but must not be negative (0 = no limit)`)
  }
  if (c.wsCpuRefillRateMs < 0 || c.wsCpuMaxStoredMs < 0)
    fail('ws-cpu-refill-rate and ws-cpu-max-stored must not be negative')
  if (!['', 'hash', 'firewood', 'path'].includes(c.stateScheme)) {
    fail(`state-scheme ${JSON.stringify(c.stateScheme)} is not one of "hash", "firewood" or "path"`)
  }
  if (c.stateScheme === 'firewood') {
    if (c.snapshotCache > 0) fail('snapshot cache must be disabled for Firewood')
    if (c.offlinePruningEnabled) fail('offline pruning is not supported for Firewood')
    if (c.populateMissingTries !== null) fail('missing trie repopulation is not supported for Firewood')
  }
}

function freeze(c: EvmConfig): EvmConfig {
  for (const value of Object.values(c)) if (Array.isArray(value)) Object.freeze(value)
  return Object.freeze(c)
}
