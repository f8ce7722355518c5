/**
 * C-chain presets per network (reference/cchain.md 6): chain id, upgrade schedule (unix seconds) and genesis.
 * - 12345 (local): chainId 43112, everything through Granite active at 1607144400, Helicon unscheduled.
 * - 5 (fuji) → 43113 and 1 (mainnet) → 43114 with the section 6 upgrade times and their (timestamp 0) genesis.
 * - Any other network id: local rules and local genesis with chainId 43112 (Firn's choice; the reference's custom
 *   networks bring their own C-chain genesis, which Firn does not read).
 * `dev` (local-rule networks only; ignored for mainnet and Fuji): a DEVIATION from the reference. The genesis, and so
 * every later block, carries minDelayExcess 0, i.e. a minimum block delay of M = 1 ms instead of 2000 ms, so a tx can
 * be in a block within milliseconds. A dev genesis therefore has a different hash from the reference's local one.
 */

import { desiredTargetExcess } from './acp176.js'
import { INITIAL_MIN_DELAY_EXCESS } from './acp226.js'

export const UPGRADE_NAMES = [
  'apricotPhase1',
  'apricotPhase2',
  'apricotPhase3',
  'apricotPhase4',
  'apricotPhase5',
  'apricotPhasePre6',
  'apricotPhase6',
  'apricotPhasePost6',
  'banff',
  'cortina',
  'durango',
  'etna',
  'fortuna',
  'granite',
  'helicon',
] as const
export type UpgradeName = (typeof UPGRADE_NAMES)[number]

export interface GenesisAccount {
  balance: bigint
  nonce?: bigint
  code?: Uint8Array
  /** 0x-prefixed 32-byte hex slot → 0x-prefixed 32-byte hex value. */
  storage?: Map<string, string>
}

export interface EvmPreset {
  name: 'local' | 'fuji' | 'mainnet' | 'custom'
  networkId: number
  chainId: bigint
  dev: boolean
  upgrades: Record<UpgradeName, bigint /* unix s */>
  genesis: {
    timestamp: bigint
    gasLimit: bigint
    extraData: Uint8Array
    /** 0x lowercase address → account. Includes the accounts the node itself creates at genesis (the Warp precompile
     * when Durango is active at the genesis timestamp), so writing this map gives the reference's genesis state. */
    alloc: Map<string, GenesisAccount>
    /** Header fields a genesis JSON may set (evmPresetFromGenesis); absent means zero. */
    nonce?: bigint
    difficulty?: bigint
    mixHash?: Uint8Array
    coinbase?: Uint8Array
    /** The genesis base fee when AP3 is active at genesis; absent means AP3's 225 gwei. */
    baseFee?: bigint
  }
  /** minDelayExcess of the genesis header (Granite at genesis). */
  initialMinDelayExcess: bigint
  /** Desired ACP-176 target, gas/s (`gas-target`); unset keeps the parent's target. */
  gasTarget?: bigint
  /**
   * ACP-176 target excess the first block starts from (the reference: 0, a target of 1M gas/s). Firn's `--dev`
   * starts at DEV_GAS_TARGET so a lone dev node is not throttled to ~95 transfers/s (docs/api.md, deviations).
   */
  initialTargetExcess?: bigint
}

/** The ACP-176 gas target a `--dev` chain starts with, gas/s. */
export const DEV_GAS_TARGET = 25_000_000n

/** The well-known, public "ewoq" test key (reference 6). */
export const EWOQ_PRIVATE_KEY = '56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027'
export const EWOQ_ADDRESS = '0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc'
/** 50,000,000 AVAX in wei. */
export const LOCAL_EWOQ_BALANCE = 0x295be96e64066972000000n
export const WARP_ADDRESS = '0x0200000000000000000000000000000000000005'
/** "InitiallyActiveTime", 2020-12-05 05:00 UTC. */
export const INITIALLY_ACTIVE_TIME = 1_607_144_400n
export const UNSCHEDULED_TIME = 253_399_622_400n

export const LOCAL_NETWORK_ID = 12345
export const FUJI_NETWORK_ID = 5
export const MAINNET_NETWORK_ID = 1

const MAINNET_TIMES = [
  1617199200n,
  1620644400n,
  1629813600n,
  1632344400n,
  1638468000n,
  1662341400n,
  1662494400n,
  1662519600n,
  1666108800n,
  1682434800n,
  1709740800n,
  1734368400n,
  1744124400n,
  1763568000n,
  UNSCHEDULED_TIME,
]
const FUJI_TIMES = [
  1616767200n,
  1620223200n,
  1629140400n,
  1631826000n,
  1637766000n,
  1662494400n,
  1662494400n,
  1662530400n,
  1664805600n,
  1680793200n,
  1707840000n,
  1732550400n,
  1741878000n,
  1761750000n,
  UNSCHEDULED_TIME,
]

function schedule(times: bigint[]): Record<UpgradeName, bigint> {
  return Object.fromEntries(UPGRADE_NAMES.map((n, i) => [n, times[i]!])) as Record<UpgradeName, bigint>
}

/** Every upgrade up to and including `last` at InitiallyActiveTime, the rest unscheduled. */
export function upgradesThrough(last: UpgradeName | undefined): Record<UpgradeName, bigint> {
  const end = last === undefined ? -1 : UPGRADE_NAMES.indexOf(last)
  return schedule(UPGRADE_NAMES.map((_, i) => (i <= end ? INITIALLY_ACTIVE_TIME : UNSCHEDULED_TIME)))
}

export function isActive(upgrades: Record<UpgradeName, bigint>, name: UpgradeName, timeSec: bigint): boolean {
  return upgrades[name] <= timeSec
}

/** `alloc` plus the accounts the reference creates at genesis: the Warp precompile (nonce 1, code 0x01) when Durango
 * is active at `timestamp`. */
export function withGenesisPrecompiles(
  alloc: Map<string, GenesisAccount>,
  upgrades: Record<UpgradeName, bigint>,
  timestamp: bigint,
): Map<string, GenesisAccount> {
  const out = new Map(alloc)
  if (isActive(upgrades, 'durango', timestamp))
    out.set(WARP_ADDRESS, { balance: 0n, nonce: 1n, code: Uint8Array.of(1) })
  return out
}

/** The native-asset helper contract mainnet and Fuji put at 0x0100…00 in their genesis. */
export const BLACKHOLE_CODE_HEX =
  '7300000000000000000000000000000000000000003014608060405260043610603d5760003560e01c80631e010439146042578063b6510bb3' +
  '14606e575b600080fd5b605c60048036036020811015605657600080fd5b503560b1565b60408051918252519081900360200190f35b818015' +
  '607957600080fd5b5060af60048036036080811015608e57600080fd5b506001600160a01b03813516906020810135906040810135906060' +
  '013560b6565b005b30cd90565b836001600160a01b031681836108fc8690811502906040516000604051808303818888878c8acf955050505050' +
  '5015801560f4573d6000803e3d6000fd5b505050505056fea26469706673582212201eebce970fe3f5cb96bf8ac6ba5f5c133fc2908ae3dcd5' +
  '1082cfee8f583429d064736f6c634300060a0033'

export function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  return out
}

/** The local C-chain genesis with a given schedule (the funded ewoq account, plus genesis precompiles). */
export function localGenesis(upgrades: Record<UpgradeName, bigint>): EvmPreset['genesis'] {
  const alloc = new Map<string, GenesisAccount>([[EWOQ_ADDRESS, { balance: LOCAL_EWOQ_BALANCE }]])
  return {
    timestamp: INITIALLY_ACTIVE_TIME,
    gasLimit: 100_000_000n,
    extraData: Uint8Array.of(0),
    alloc: withGenesisPrecompiles(alloc, upgrades, INITIALLY_ACTIVE_TIME),
  }
}

function productionGenesis(upgrades: Record<UpgradeName, bigint>): EvmPreset['genesis'] {
  const alloc = new Map<string, GenesisAccount>([
    ['0x0100000000000000000000000000000000000000', { balance: 0n, code: hexBytes(BLACKHOLE_CODE_HEX) }],
  ])
  return {
    timestamp: 0n,
    gasLimit: 100_000_000n,
    extraData: Uint8Array.of(0),
    alloc: withGenesisPrecompiles(alloc, upgrades, 0n),
  }
}

export function evmPreset(networkId: number, opts: { dev: boolean }): EvmPreset {
  if (networkId === MAINNET_NETWORK_ID || networkId === FUJI_NETWORK_ID) {
    const mainnet = networkId === MAINNET_NETWORK_ID
    const upgrades = schedule(mainnet ? MAINNET_TIMES : FUJI_TIMES)
    return {
      name: mainnet ? 'mainnet' : 'fuji',
      networkId,
      chainId: mainnet ? 43114n : 43113n,
      dev: false,
      upgrades,
      genesis: productionGenesis(upgrades),
      initialMinDelayExcess: INITIAL_MIN_DELAY_EXCESS,
    }
  }
  const upgrades = upgradesThrough('granite')
  return {
    name: networkId === LOCAL_NETWORK_ID ? 'local' : 'custom',
    networkId,
    chainId: 43112n,
    dev: opts.dev,
    upgrades,
    genesis: localGenesis(upgrades),
    // dev: excess 0 gives the minimum delay M = 1 ms (see the module comment).
    initialMinDelayExcess: opts.dev ? 0n : INITIAL_MIN_DELAY_EXCESS,
    ...(opts.dev ? { initialTargetExcess: desiredTargetExcess(DEV_GAS_TARGET) } : {}),
  }
}
