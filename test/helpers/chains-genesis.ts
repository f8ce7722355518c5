/**
 * Genesis files that declare chains next to C, for tests and benches: `D`, a second EVM chain (EIP-155 chain ID
 * 99999) with EWOQ funded, in the `--dev` form (only a `chains` list; the dev preset fills in the rest).
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { EWOQ_ADDRESS } from '../../src/chains/evm/rules/presets.js'

export const D_CHAIN_ID = 99999
export const D_FUNDS = 10n ** 24n

/** the declaration of D */
export const D_CHAIN = {
  name: 'D',
  vm: 'evm',
  genesis: {
    config: { chainId: D_CHAIN_ID },
    gasLimit: '0x7A1200',
    alloc: { [EWOQ_ADDRESS.slice(2)]: { balance: `0x${D_FUNDS.toString(16)}` } },
  },
}

/** `{"chains": [D, ...extra]}` */
export const devChainsGenesis = (extra: unknown[] = []) => ({ chains: [D_CHAIN, ...extra] })

/** Writes the genesis file into `dir` (as `chains.json`) and returns its path. */
export async function writeGenesisFile(dir: string, genesis: unknown): Promise<string> {
  const path = join(dir, 'chains.json')
  await writeFile(path, JSON.stringify(genesis))
  return path
}
