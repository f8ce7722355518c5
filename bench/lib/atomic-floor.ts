/**
 * The in-process side of bench/atomic.bench.ts: C -> X exports signed with Firn's own atomic code (one EVM input at
 * the sender's nonce, one output to the sender's short address), and the floor: the same signed bytes decoded,
 * verified (verifyAtomicTx) and applied (transferAtomic) one by one on an in-memory account map, as a block does
 * with its atomic txs (src/chains/evm/atomic/semantic.ts).
 */
import { Account, type Address } from '@ethereumjs/util'
import { encodeTx } from '../../src/chains/evm/atomic/codec.js'
import { fromHex, toHex } from '../../src/chains/evm/atomic/hex.js'
import { decodeSignedTx } from '../../src/chains/evm/atomic/ids.js'
import { type AtomicState, transferAtomic, verifyAtomicTx } from '../../src/chains/evm/atomic/semantic.js'
import { evmAddressOfKey, shortAddressOfKey, signTx } from '../../src/chains/evm/atomic/sign.js'
import type { Hex, UnsignedExportTx } from '../../src/chains/evm/atomic/types.js'
import type { SyntaxContext } from '../../src/chains/evm/atomic/verify.js'
import { SharedMemory } from '../../src/chains/shared-memory/shared-memory.js'
import { openDatabase } from '../../src/db/open.js'
import { idFromString } from '../../src/identity/ids.js'

export interface ExportSpec {
  networkId: number
  /** CB58 */
  cChain: string
  xChain: string
  avaxAssetId: string
  /** nAVAX each export hands the X chain */
  amount: bigint
  /** nAVAX each export burns (at least the dynamic fee at the base fee of its block) */
  fee: bigint
}

export const syntaxContext = (s: ExportSpec): SyntaxContext => {
  const x = toHex(idFromString(s.xChain))
  return {
    networkId: s.networkId,
    chainId: toHex(idFromString(s.cChain)),
    avaxAssetId: toHex(idFromString(s.avaxAssetId)),
    xChainId: x,
    sameSubnet: (chain) => chain.toLowerCase() === x,
  }
}

/** `perKey` exports of each key at nonces 0.. in order: result[key][nonce] = signed bytes. */
export function signExports(keys: readonly Uint8Array[], perKey: number, s: ExportSpec): Uint8Array[][] {
  const ctx = syntaxContext(s)
  return keys.map((key) => {
    const address = evmAddressOfKey(key)
    const owner = shortAddressOfKey(key)
    return Array.from({ length: perKey }, (_, nonce) => {
      const unsigned: UnsignedExportTx = {
        type: 'export',
        networkId: s.networkId,
        blockchainId: ctx.chainId,
        destinationChain: ctx.xChainId,
        inputs: [{ address, amount: s.amount + s.fee, assetId: ctx.avaxAssetId, nonce: BigInt(nonce) }],
        exportedOutputs: [
          { assetId: ctx.avaxAssetId, output: { amount: s.amount, locktime: 0n, threshold: 1, addresses: [owner] } },
        ],
      }
      return encodeTx(signTx(unsigned, [[key]]))
    })
  })
}

/** A map of accounts, each key's funded with `balanceWei`. */
function memoryState(keys: readonly Uint8Array[], balanceWei: bigint): AtomicState {
  const accounts = new Map<string, Account>()
  for (const k of keys) accounts.set(evmAddressOfKey(k), new Account(0n, balanceWei))
  const id = (a: Address): Hex => toHex(a.bytes)
  return {
    getAccount: async (a) => accounts.get(id(a)),
    putAccount: async (a, account) => {
      if (account === undefined) accounts.delete(id(a))
      else accounts.set(id(a), account)
    },
  }
}

/**
 * Decode + verify + apply every tx, nonce by nonce across the keys (the order the node accepts them in), on a
 * fresh state; throws on the first problem. Returns the seconds it took.
 */
export async function floorRun(
  keys: readonly Uint8Array[],
  signed: readonly Uint8Array[][],
  s: ExportSpec,
  baseFeeWei: bigint,
  balanceWei: bigint,
): Promise<number> {
  const db = await openDatabase({ type: 'memdb', path: '' })
  try {
    const memory = new SharedMemory(db).forChain(s.cChain)
    const ctx = syntaxContext(s)
    const env = {
      ctx,
      baseFee: baseFeeWei,
      nowUnix: BigInt(Math.floor(Date.now() / 1000)),
      memory,
      spent: () => false,
      bootstrapped: true,
    }
    const state = memoryState(keys, balanceWei)
    const perKey = signed[0]?.length ?? 0
    const t0 = performance.now()
    for (let nonce = 0; nonce < perKey; nonce++) {
      for (const list of signed) {
        const d = decodeSignedTx(list[nonce]!)
        const problem = (await verifyAtomicTx(d, env)) ?? (await transferAtomic(d, ctx.avaxAssetId, state))
        if (problem !== undefined) throw new Error(`floor: ${problem}`)
      }
    }
    return (performance.now() - t0) / 1000
  } finally {
    await db.close()
  }
}

/** The short address (20 bytes) of a key, as bytes. */
export const shortOf = (key: Uint8Array): Uint8Array => fromHex(shortAddressOfKey(key), 20, 'address')
