/**
 * The EVM store's check on open (issue 14): a database that lost part of its files must not start as if nothing
 * happened. With a last-accepted pointer present, the tip block, its recent ancestors, the canonical index of
 * each, genesis and the state trie's root at the tip must all be there and agree; otherwise a `ChainStoreError`
 * names the first thing missing. It reads about 2 x RECENT_ANCESTORS keys.
 */
import { bytesToHex, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util'
import { ChainStoreError } from '../../store-error.js'
import { type AvaHeader, decodeBlock } from '../header.js'
import type { ChainStore } from './chain-store.js'

/** ancestors of the last accepted block read on open (the state history pruning keeps is 32 roots by default) */
export const RECENT_ANCESTORS = 32

async function blockAt(store: ChainStore, hash: Uint8Array, what: string): Promise<AvaHeader> {
  const rlp = await store.getBlock(hash)
  if (rlp === undefined) throw new ChainStoreError(`${what} ${bytesToHex(hash)} is missing from the chain's store`)
  let header: AvaHeader
  try {
    header = decodeBlock(rlp).header
  } catch (err) {
    throw new ChainStoreError(`${what} ${bytesToHex(hash)} cannot be decoded: ${(err as Error).message}`)
  }
  const canonical = await store.canonicalHash(header.number)
  if (canonical === undefined || !equalsBytes(canonical, hash)) {
    throw new ChainStoreError(
      `the canonical index of height ${header.number} ${canonical === undefined ? 'is missing' : `names ${bytesToHex(canonical)}`}, not ${what} ${bytesToHex(hash)}`,
    )
  }
  return header
}

/** Checks the store behind a last-accepted pointer `tip`; returns the tip's header. */
export async function checkChainStore(store: ChainStore, tip: Uint8Array): Promise<AvaHeader> {
  const header = await blockAt(store, tip, 'the last accepted block')
  if (!equalsBytes(header.stateRoot, KECCAK256_RLP) && (await store.nodes.get(header.stateRoot)) === undefined) {
    throw new ChainStoreError(
      `the state of the last accepted block (height ${header.number}, root ${bytesToHex(header.stateRoot)}) is missing`,
    )
  }
  let child = header
  for (let i = 0; i < RECENT_ANCESTORS && child.number > 0n; i++) {
    const parent = await blockAt(
      store,
      child.parentHash,
      `block ${child.number - 1n}, an ancestor of the last accepted,`,
    )
    if (parent.number !== child.number - 1n)
      throw new ChainStoreError(
        `block ${bytesToHex(child.parentHash)} has height ${parent.number}, not ${child.number - 1n}`,
      )
    child = parent
  }
  if (child.number > 0n) {
    const genesis = await store.canonicalHash(0n)
    if (genesis === undefined) throw new ChainStoreError('the genesis block is missing from the canonical index')
    await blockAt(store, genesis, 'the genesis block')
  }
  return header
}
