/**
 * `evmPresetFromGenesis`: the reference's C-chain genesis JSON (coreth core.Genesis) -> an EvmPreset, the way
 * coreth reads it (core/genesis.go toBlock, plugin/evm/vm.go parseGenesis):
 *
 * - header fields it honours: `nonce`, `timestamp`, `extraData`, `gasLimit` (required; 0 means 4,712,388),
 *   `difficulty`, `mixHash`, `coinbase`, `baseFeePerGas` (the genesis base fee when AP3 is active at genesis);
 * - `alloc` (required): per address `balance` (required), `nonce`, `code`, `storage`; `privateKey` is accepted and
 *   ignored; the Warp precompile is created first when Durango is active at genesis, so an alloc entry overrides it;
 * - `config.chainId` (required, a JSON integer) and the upgrade times (`apricotPhase1BlockTimestamp` ...
 *   `graniteTimestamp`): the network's schedule (the preset's) with each time the config sets. DEVIATION: coreth
 *   always injects the network's schedule; Firn honours a declared chain's own times;
 * - checked only: the Ethereum fork blocks (`homesteadBlock` ... `muirGlacierBlock` must be 0: Firn runs every
 *   Ethereum fork from genesis), `berlinBlock`, `londonBlock`, `shanghaiTime`, `cancunTime` (they follow the
 *   Avalanche upgrades, as coreth's SetEthUpgrades sets them), `daoForkSupport`, `eip150Hash`;
 * - `number`, `gasUsed`, `excessBlobGas`, `blobGasUsed` must be 0 and `parentHash` zero (coreth cannot commit
 *   anything else as a genesis either, or Firn does not run it);
 * - DEVIATION: `difficulty` may be left out (0); coreth requires it.
 *
 * `dev` gives `--dev`'s timing on local-rule networks, exactly as evmPreset does. Errors are EvmGenesisError with
 * the field's path.
 */
import { AVALANCHE_KEYS } from './chain-config-json.js'
import {
  allocAddress,
  fail,
  fixedHex,
  hexBytes,
  isObject,
  joinPath,
  kindOf,
  members,
  quantity,
  shown,
  storageWord,
} from './genesis-json-values.js'
import {
  type EvmPreset,
  evmPreset,
  type GenesisAccount,
  UNSCHEDULED_TIME,
  type UpgradeName,
  withGenesisPrecompiles,
} from './presets.js'

export { EvmGenesisError } from './genesis-json-values.js'

const TOP_KEYS = [
  'config',
  'nonce',
  'timestamp',
  'extraData',
  'gasLimit',
  'difficulty',
  'mixHash',
  'coinbase',
  'alloc',
  'number',
  'gasUsed',
  'parentHash',
  'baseFeePerGas',
  'excessBlobGas',
  'blobGasUsed',
] as const
const ETH_FORK_BLOCKS = [
  'homesteadBlock',
  'daoForkBlock',
  'eip150Block',
  'eip155Block',
  'eip158Block',
  'byzantiumBlock',
  'constantinopleBlock',
  'petersburgBlock',
  'istanbulBlock',
  'muirGlacierBlock',
]
const FOLLOWING_AVALANCHE = ['berlinBlock', 'londonBlock', 'shanghaiTime', 'cancunTime']
const CONFIG_KEYS = [
  'chainId',
  ...ETH_FORK_BLOCKS,
  ...FOLLOWING_AVALANCHE,
  'daoForkSupport',
  'eip150Hash',
  ...AVALANCHE_KEYS.map(([key]) => key),
]
const ACCOUNT_KEYS = ['balance', 'nonce', 'code', 'storage', 'privateKey']

export interface EvmGenesisOptions {
  networkId: number
  /** `--dev` (or `--dev-speed`): the presets' dev timing */
  dev: boolean
}

export function evmPresetFromGenesis(json: unknown, opts: EvmGenesisOptions): EvmPreset {
  const top = members(json, '', TOP_KEYS)
  const base = evmPreset(opts.networkId, { dev: opts.dev })
  const config = top.get('config')
  if (config === undefined || config === null) fail('config', 'genesis has no chain configuration')
  const { chainId, upgrades } = chainConfig(config, base.upgrades)

  const gasLimitValue = top.get('gasLimit')
  if (gasLimitValue === undefined) fail('gasLimit', "missing required field 'gasLimit' for Genesis")
  const allocValue = top.get('alloc')
  if (allocValue === undefined) fail('alloc', "missing required field 'alloc' for Genesis")
  const opt = (key: (typeof TOP_KEYS)[number], bits: 64 | 256): bigint | undefined => {
    const v = top.get(key)
    return v === undefined || v === null ? undefined : quantity(v, key, bits)
  }
  for (const key of ['number', 'gasUsed', 'excessBlobGas', 'blobGasUsed'] as const) {
    const v = opt(key, 64)
    if (v !== undefined && v !== 0n) fail(key, `must be 0 in a genesis, got ${shown(top.get(key))}`)
  }
  const parentHash = top.get('parentHash')
  if (parentHash !== undefined && fixedHex(parentHash, 'parentHash', 32).some((b) => b !== 0)) {
    fail('parentHash', 'must be the zero hash in a genesis')
  }

  const timestamp = opt('timestamp', 64) ?? 0n
  const extra = top.get('extraData')
  const genesis: EvmPreset['genesis'] = {
    timestamp,
    gasLimit: quantity(gasLimitValue, 'gasLimit', 64),
    extraData: extra === undefined || extra === null ? new Uint8Array(0) : hexBytes(extra, 'extraData'),
    alloc: genesisAlloc(allocValue, upgrades, timestamp),
  }
  const nonce = opt('nonce', 64)
  if (nonce) genesis.nonce = nonce
  const difficulty = opt('difficulty', 256)
  if (difficulty) genesis.difficulty = difficulty
  const baseFee = opt('baseFeePerGas', 256)
  if (baseFee !== undefined) genesis.baseFee = baseFee
  const mixHash = top.get('mixHash')
  if (mixHash !== undefined && mixHash !== null) {
    const bytes = fixedHex(mixHash, 'mixHash', 32)
    if (bytes.some((b) => b !== 0)) genesis.mixHash = bytes
  }
  const coinbase = top.get('coinbase')
  if (coinbase !== undefined && coinbase !== null) {
    const bytes = fixedHex(coinbase, 'coinbase', 20)
    if (bytes.some((b) => b !== 0)) genesis.coinbase = bytes
  }
  return { ...base, chainId, upgrades, genesis }
}

function chainConfig(
  value: unknown,
  networkUpgrades: Record<UpgradeName, bigint>,
): { chainId: bigint; upgrades: Record<UpgradeName, bigint> } {
  const config = members(value, 'config', CONFIG_KEYS)
  const rawChainId = config.get('chainId')
  if (typeof rawChainId !== 'number' || !Number.isSafeInteger(rawChainId) || rawChainId <= 0) {
    fail('config.chainId', `expected a positive JSON integer below 2^53, got ${shown(rawChainId)}`)
  }
  for (const key of ETH_FORK_BLOCKS) {
    const v = config.get(key)
    if (v !== undefined && v !== null && v !== 0) {
      fail(`config.${key}`, `Firn runs every Ethereum fork from genesis: must be 0, got ${shown(v)}`)
    }
  }
  for (const key of FOLLOWING_AVALANCHE) {
    const v = config.get(key)
    if (v !== undefined && v !== null && !(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) {
      fail(`config.${key}`, `expected a non-negative JSON integer, got ${shown(v)}`)
    }
  }
  const dao = config.get('daoForkSupport')
  if (dao !== undefined && typeof dao !== 'boolean')
    fail('config.daoForkSupport', `expected a boolean, got ${kindOf(dao)}`)
  const eip150Hash = config.get('eip150Hash')
  if (eip150Hash !== undefined && eip150Hash !== null) fixedHex(eip150Hash, 'config.eip150Hash', 32)

  const upgrades = { ...networkUpgrades }
  for (const [key, name] of AVALANCHE_KEYS) {
    const v = config.get(key)
    if (v === undefined || v === null) continue
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
      fail(`config.${key}`, `expected a unix time in seconds (a non-negative JSON integer), got ${shown(v)}`)
    }
    upgrades[name] = BigInt(v)
  }
  if (upgrades.helicon !== UNSCHEDULED_TIME) {
    fail('config.heliconTimestamp', "Firn's EVM does not implement Helicon; leave it unscheduled")
  }
  for (let i = 1; i < AVALANCHE_KEYS.length; i++) {
    const [key, name] = AVALANCHE_KEYS[i]!
    const [prevKey, prev] = AVALANCHE_KEYS[i - 1]!
    if (upgrades[name] < upgrades[prev]) {
      fail(
        `config.${key}`,
        `${upgrades[name]} is before ${prevKey} (${upgrades[prev]}); upgrades must be in order (unset ones are the network's)`,
      )
    }
  }
  return { chainId: BigInt(rawChainId), upgrades }
}

function genesisAlloc(
  value: unknown,
  upgrades: Record<UpgradeName, bigint>,
  timestamp: bigint,
): Map<string, GenesisAccount> {
  if (!isObject(value)) fail('alloc', `expected a JSON object of address -> account, got ${kindOf(value)}`)
  // coreth applies the genesis precompiles first; an alloc entry at the same address then overrides them
  const out = withGenesisPrecompiles(new Map(), upgrades, timestamp)
  const seen = new Set<string>()
  for (const [key, entry] of Object.entries(value)) {
    const path = `alloc.${key}`
    const address = allocAddress(key, path)
    if (seen.has(address)) fail(path, `the address ${address} appears twice`)
    seen.add(address)
    out.set(address, account(entry, path))
  }
  return out
}

function account(value: unknown, path: string): GenesisAccount {
  const fields = members(value, path, ACCOUNT_KEYS)
  const balance = fields.get('balance')
  if (balance === undefined) fail(joinPath(path, 'balance'), "missing required field 'balance' for GenesisAccount")
  const out: GenesisAccount = { balance: quantity(balance, joinPath(path, 'balance'), 256) }
  const nonce = fields.get('nonce')
  if (nonce !== undefined && nonce !== null) {
    const n = quantity(nonce, joinPath(path, 'nonce'), 64)
    if (n !== 0n) out.nonce = n
  }
  const code = fields.get('code')
  if (code !== undefined && code !== null) {
    const bytes = hexBytes(code, joinPath(path, 'code'))
    if (bytes.length > 0) out.code = bytes
  }
  const privateKey = fields.get('privateKey')
  if (privateKey !== undefined && privateKey !== null) hexBytes(privateKey, joinPath(path, 'privateKey'))
  const storage = fields.get('storage')
  if (storage !== undefined && storage !== null) {
    const where = joinPath(path, 'storage')
    if (!isObject(storage)) fail(where, `expected a JSON object of slot -> value, got ${kindOf(storage)}`)
    const slots = new Map<string, string>()
    for (const [slot, word] of Object.entries(storage)) {
      slots.set(storageWord(slot, `${where}.${slot}`), storageWord(word, `${where}.${slot}`))
    }
    if (slots.size > 0) out.storage = slots
  }
  return out
}
