/** The genesis allocation written into a fresh state (geth's genesis `alloc` shape, numbers as hex or bigint). */
import { Account, type Address, bytesToHex, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import type { GenesisAccount as PresetAccount } from '../rules/presets.js'
import type { AvaStateManager } from '../state/state-manager.js'

export interface GenesisAccount {
  balance?: bigint | string
  nonce?: bigint | string
  code?: string
  storage?: Record<string, string>
}

export type GenesisAlloc = Record<string, GenesisAccount>

function big(x: bigint | string | undefined): bigint {
  return x === undefined ? 0n : BigInt(x)
}

function addressOf(key: string): Address {
  return createAddressFromString(key.startsWith('0x') ? key : `0x${key}`)
}

/** Write `alloc` and return the state root. */
export async function writeGenesisAlloc(sm: AvaStateManager, alloc: GenesisAlloc): Promise<Uint8Array> {
  for (const [key, acct] of Object.entries(alloc)) {
    const address = addressOf(key)
    await sm.putAccount(address, new Account(big(acct.nonce), big(acct.balance)))
    if (acct.code !== undefined && acct.code !== '0x' && acct.code !== '')
      await sm.putCode(address, hexToBytes(acct.code as `0x${string}`))
    for (const [slot, value] of Object.entries(acct.storage ?? {})) {
      await sm.putStorage(
        address,
        setLengthLeft(hexToBytes(slot as `0x${string}`), 32),
        hexToBytes(value as `0x${string}`),
      )
    }
  }
  return sm.getStateRoot()
}

/** A preset's allocation (rules/presets.ts: bytes and maps) in the `alloc` shape written here. */
export function presetAlloc(alloc: ReadonlyMap<string, PresetAccount>): GenesisAlloc {
  const out: GenesisAlloc = {}
  for (const [address, a] of alloc) {
    out[address] = {
      balance: a.balance,
      ...(a.nonce === undefined ? {} : { nonce: a.nonce }),
      ...(a.code === undefined ? {} : { code: bytesToHex(a.code) }),
      ...(a.storage === undefined ? {} : { storage: Object.fromEntries(a.storage) }),
    }
  }
  return out
}
