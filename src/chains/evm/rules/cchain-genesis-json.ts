/**
 * The presets' C-chain genesis as the reference's JSON (the `cChainGenesis` of genesis/genesis_<network>.json):
 * `evmPresetFromGenesis(presetCChainGenesis(n), { networkId: n, dev })` is `evmPreset(n, { dev })`, so the C chain is
 * declared like any other chain. The local form leaves out the reference's `apricotPhase1BlockTimestamp: 0` and
 * `apricotPhase2BlockTimestamp: 0` (coreth ignores them; Firn would honour them, moving the two times in
 * eth_getChainConfig); the genesis hash is the same either way.
 */
import { BLACKHOLE_CODE_HEX, EWOQ_ADDRESS, FUJI_NETWORK_ID, MAINNET_NETWORK_ID } from './presets.js'

const ZERO_HASH = `0x${'00'.repeat(32)}`
const ZERO_ADDRESS = `0x${'00'.repeat(20)}`

function genesisJson(chainId: number, timestamp: string, alloc: Record<string, unknown>): Record<string, unknown> {
  return {
    config: {
      chainId,
      homesteadBlock: 0,
      daoForkBlock: 0,
      daoForkSupport: true,
      eip150Block: 0,
      eip150Hash: '0x2086799aeebeae135c246c65021c82b4e15a2c451340993aacfd2751886514f0',
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      muirGlacierBlock: 0,
    },
    nonce: '0x0',
    timestamp,
    extraData: '0x00',
    gasLimit: '0x5f5e100',
    difficulty: '0x0',
    mixHash: ZERO_HASH,
    coinbase: ZERO_ADDRESS,
    alloc,
    number: '0x0',
    gasUsed: '0x0',
    parentHash: ZERO_HASH,
  }
}

/** The C chain's genesis JSON of a network's preset (local for every network but mainnet and Fuji). */
export function presetCChainGenesis(networkId: number): Record<string, unknown> {
  if (networkId === MAINNET_NETWORK_ID || networkId === FUJI_NETWORK_ID) {
    const code = { code: `0x${BLACKHOLE_CODE_HEX}`, balance: '0x0' }
    return genesisJson(networkId === MAINNET_NETWORK_ID ? 43114 : 43113, '0x0', {
      '0100000000000000000000000000000000000000': code,
    })
  }
  return genesisJson(43112, '0x5FCB13D0', { [EWOQ_ADDRESS.slice(2)]: { balance: '0x295BE96E64066972000000' } })
}
