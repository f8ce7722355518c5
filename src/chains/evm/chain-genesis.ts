/**
 * An EVM chain's genesis as the VM gets it (`ChainVmContext.genesis`): either the reference's C-chain genesis JSON
 * (`config.chainId`, `alloc`, `gasLimit` ...), turned into the EVM's rules and genesis by the parser the node
 * plugs in (`evmPresetFromGenesis(json, {networkId, dev})`, src/chains/evm/rules/), or, Firn-internal, a network
 * preset's own C chain already resolved by the node (`presetGenesis(evmPreset(networkId, {dev}))`): the presets'
 * chains keep their genesis, and so their block hashes, exactly.
 */
import type { EvmPreset } from './rules/presets.js'

/** The EVM genesis JSON -> the chain's preset (rules, upgrade times, genesis block). Throws with the reason. */
export type EvmPresetFromGenesis = (genesis: unknown, opts: { networkId: number; dev: boolean }) => EvmPreset

const PRESET_FIELD = 'firnEvmPreset'

/** A genesis that is a resolved preset (Firn-internal; never read from a file). */
export interface EvmPresetGenesis {
  readonly [PRESET_FIELD]: EvmPreset
}

export const presetGenesis = (preset: EvmPreset): EvmPresetGenesis => ({ [PRESET_FIELD]: preset })

function isPresetGenesis(genesis: unknown): genesis is EvmPresetGenesis {
  return typeof genesis === 'object' && genesis !== null && PRESET_FIELD in genesis
}

/** The chain's preset from its declared genesis; a JSON genesis needs `fromJson`. */
export function resolveEvmPreset(
  genesis: unknown,
  opts: { networkId: number; dev: boolean },
  fromJson: EvmPresetFromGenesis | undefined,
): EvmPreset {
  if (isPresetGenesis(genesis)) return genesis[PRESET_FIELD]
  if (fromJson === undefined)
    throw new Error('this node cannot read an EVM genesis JSON (no genesis parser plugged in)')
  return fromJson(genesis, opts)
}
