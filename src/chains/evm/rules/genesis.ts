/**
 * The genesis state root and header (reference/cchain.md 5.6 and 6). Accounts are RLP
 * [nonce, balance, storageRoot, codeHash, isMultiCoin=false] (5 fields) keyed by keccak(address); storage slots are
 * normalised (bit 0 of byte 0 cleared) and keyed by keccak(slot); empty accounts are dropped (EIP-161), as the
 * reference's state commit does.
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { type AvaHeader, EMPTY_EXT_DATA_HASH } from '../header.js'
import { type EvmPreset, type GenesisAccount, isActive } from './presets.js'

/** AP3's initial base fee, 225 gwei. */
export const GENESIS_BASE_FEE = 225_000_000_000n
/** keccak(RLP([])): the uncle hash of a block without uncles. */
export const EMPTY_UNCLE_HASH: Uint8Array = keccak_256(RLP.encode([]))
/** The root of an empty trie (same bytes as EMPTY_EXT_DATA_HASH). */
export const EMPTY_TRIE_ROOT: Uint8Array = EMPTY_EXT_DATA_HASH
export const EMPTY_CODE_HASH: Uint8Array = keccak_256(new Uint8Array(0))

function parseHex(hex: string, what: string, maxBytes: number): Uint8Array {
  const body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex
  if (body.length % 2 !== 0 || body.length > 2 * maxBytes || !/^[0-9a-fA-F]*$/.test(body)) {
    throw new Error(`invalid genesis ${what}: ${hex}`)
  }
  const out = new Uint8Array(body.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(body.slice(2 * i, 2 * i + 2), 16)
  return out
}

function word(hex: string, what: string): Uint8Array {
  const raw = parseHex(hex, what, 32)
  const out = new Uint8Array(32)
  out.set(raw, 32 - raw.length)
  return out
}

function trimLeadingZeros(b: Uint8Array): Uint8Array {
  let i = 0
  while (i < b.length && b[i] === 0) i++
  return b.subarray(i)
}

async function storageRoot(storage: Map<string, string> | undefined): Promise<Uint8Array> {
  if (storage === undefined || storage.size === 0) return EMPTY_TRIE_ROOT
  // Normalisation can make two slots alias; like sequential SetState calls, the later one wins.
  const slots = new Map<string, Uint8Array>()
  for (const [slot, value] of storage) {
    const key = word(slot, 'storage slot')
    key[0] = key[0]! & 0xfe
    slots.set(Buffer.from(key).toString('hex'), trimLeadingZeros(word(value, 'storage value')))
  }
  const trie = new MerklePatriciaTrie({ useKeyHashing: false })
  for (const [key, value] of slots) {
    if (value.length === 0) continue
    await trie.put(keccak_256(Buffer.from(key, 'hex')), RLP.encode(value))
  }
  return trie.root()
}

async function accountRlp(acct: GenesisAccount): Promise<Uint8Array | undefined> {
  const nonce = acct.nonce ?? 0n
  const code = acct.code ?? new Uint8Array(0)
  const root = await storageRoot(acct.storage)
  const empty = nonce === 0n && acct.balance === 0n && code.length === 0
  if (empty) return undefined
  return RLP.encode([nonce, acct.balance, root, keccak_256(code), new Uint8Array(0)])
}

export async function genesisStateRoot(preset: EvmPreset): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie({ useKeyHashing: false })
  for (const [address, acct] of preset.genesis.alloc) {
    const addr = parseHex(address, 'address', 20)
    if (addr.length !== 20) throw new Error(`invalid genesis address: ${address}`)
    const rlp = await accountRlp(acct)
    if (rlp !== undefined) await trie.put(keccak_256(addr), rlp)
  }
  return trie.root()
}

/** A header nonce: 8 bytes, big-endian. */
function nonceBytes(n: bigint): Uint8Array {
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigUint64(0, n)
  return out
}

/** The genesis header: fields appear as the upgrades active at the genesis timestamp require (AP3: baseFee 225 gwei
 * unless the genesis sets one;
 * Etna: extDataGasUsed, blockGasCost, blob fields 0 and a zero parentBeaconRoot; Granite: timeMilliseconds and
 * minDelayExcess). Its extDataHash is the zero hash (the reference never sets it on genesis). */
export function genesisHeader(preset: EvmPreset, stateRoot: Uint8Array): AvaHeader {
  const { timestamp, gasLimit, extraData } = preset.genesis
  const up = preset.upgrades
  const h: AvaHeader = {
    parentHash: new Uint8Array(32),
    uncleHash: EMPTY_UNCLE_HASH,
    coinbase: preset.genesis.coinbase ?? new Uint8Array(20),
    stateRoot,
    txRoot: EMPTY_TRIE_ROOT,
    receiptRoot: EMPTY_TRIE_ROOT,
    bloom: new Uint8Array(256),
    difficulty: preset.genesis.difficulty ?? 0n,
    number: 0n,
    gasLimit: gasLimit === 0n ? 4_712_388n : gasLimit,
    gasUsed: 0n,
    time: timestamp,
    extra: extraData,
    mixDigest: preset.genesis.mixHash ?? new Uint8Array(32),
    nonce: nonceBytes(preset.genesis.nonce ?? 0n),
    extDataHash: new Uint8Array(32),
  }
  if (!isActive(up, 'apricotPhase3', timestamp)) return h
  h.baseFee = preset.genesis.baseFee ?? GENESIS_BASE_FEE
  if (!isActive(up, 'etna', timestamp)) return h
  h.extDataGasUsed = 0n
  h.blockGasCost = 0n
  h.blobGasUsed = 0n
  h.excessBlobGas = 0n
  h.parentBeaconRoot = new Uint8Array(32)
  if (!isActive(up, 'granite', timestamp)) return h
  h.timeMilliseconds = timestamp * 1000n
  h.minDelayExcess = preset.initialMinDelayExcess
  return h
}
