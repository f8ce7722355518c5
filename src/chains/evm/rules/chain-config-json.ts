/** The eth_getChainConfig result (reference/cchain.md 3.3): one flat object, keys sorted, plain JSON numbers. */
import type { EvmPreset, UpgradeName } from './presets.js'

/** The chain config's upgrade time keys (coreth's JSON names), in upgrade order. */
export const AVALANCHE_KEYS: [string, UpgradeName][] = [
  ['apricotPhase1BlockTimestamp', 'apricotPhase1'],
  ['apricotPhase2BlockTimestamp', 'apricotPhase2'],
  ['apricotPhase3BlockTimestamp', 'apricotPhase3'],
  ['apricotPhase4BlockTimestamp', 'apricotPhase4'],
  ['apricotPhase5BlockTimestamp', 'apricotPhase5'],
  ['apricotPhasePre6BlockTimestamp', 'apricotPhasePre6'],
  ['apricotPhase6BlockTimestamp', 'apricotPhase6'],
  ['apricotPhasePost6BlockTimestamp', 'apricotPhasePost6'],
  ['banffBlockTimestamp', 'banff'],
  ['cortinaBlockTimestamp', 'cortina'],
  ['durangoBlockTimestamp', 'durango'],
  ['etnaTimestamp', 'etna'],
  ['fortunaTimestamp', 'fortuna'],
  ['graniteTimestamp', 'granite'],
  ['heliconTimestamp', 'helicon'],
]

/** Berlin and London activation blocks (block 0 on local and custom networks). */
const BERLIN_LONDON: Record<string, [number, number]> = { mainnet: [1640340, 3308552], fuji: [184985, 805078] }

export function chainConfigJson(preset: EvmPreset): Record<string, number | boolean> {
  const [berlin, london] = BERLIN_LONDON[preset.name] ?? [0, 0]
  const out: Record<string, number | boolean> = {
    chainId: Number(preset.chainId),
    homesteadBlock: 0,
    daoForkBlock: 0,
    daoForkSupport: true,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    muirGlacierBlock: 0,
    berlinBlock: berlin,
    londonBlock: london,
    shanghaiTime: Number(preset.upgrades.durango),
    cancunTime: Number(preset.upgrades.etna),
  }
  for (const [key, name] of AVALANCHE_KEYS) out[key] = Number(preset.upgrades[name])
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
