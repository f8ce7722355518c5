/**
 * The genesis file's `atomicUtxos` list: UTXOs put in shared memory once, when a data dir starts, as if
 * `sourceChain` had exported them to `destinationChain` (docs/operations.md, "Seeding shared memory"):
 *
 *   { "sourceChain": "X", "destinationChain": "C", "address": "X-local1...", "amount": "1000000000",
 *     "count": 3, "locktime": "0" }
 *
 * - `sourceChain`, `destinationChain`: an alias (P, platform, X, avm, C, evm or a declared chain's name) or the CB58
 *   ID of one of those chains; the destination is an EVM chain this node runs; the two differ.
 * - `address`: the owner, a CB58 short ID or `<alias>-<hrp>1...` with the network's HRP and a known chain alias.
 * - `amount`: nAVAX per UTXO, a decimal string, 1 to 2^64-1. `count`: UTXOs of that amount, default 1.
 * - `locktime`: unix seconds, a decimal string below 2^64, default "0".
 * At most MAX_GENESIS_ATOMIC_UTXOS UTXOs over the whole list. Owner threshold 1, in the network's AVAX asset.
 */
import { GENESIS_CHAIN_ALIASES } from '../../config/chain-ids.js'
import { networkHrp } from '../../config/networks.js'
import { idFromString, idToString, shortIdFromString } from '../../identity/ids.js'
import { bech32Decode } from '../evm/atomic/bech32.js'
import type { JsonNode } from '../evm/config/go-json.js'
import { type DeclaredChain, isEvm } from './declarations.js'
import { arrayField, fieldFail, objectFields, stringField } from './json-node.js'

/** One entry, its chains resolved to CB58 IDs, its owner to 20 bytes of hex. JSON-safe. */
export interface GenesisAtomicUtxos {
  /** CB58 chain ID */
  sourceChain: string
  /** CB58 chain ID of an EVM chain this node runs */
  destinationChain: string
  /** the owner's 20-byte short address, `0x` + lower-case hex */
  address: string
  /** nAVAX per UTXO, decimal */
  amount: string
  count: number
  /** unix seconds, decimal */
  locktime: string
}

/** The most UTXOs the whole `atomicUtxos` list may seed. */
export const MAX_GENESIS_ATOMIC_UTXOS = 100_000
const ENTRY_KEYS = ['sourceChain', 'destinationChain', 'address', 'amount', 'count', 'locktime']
const MAX_U64 = (1n << 64n) - 1n
const DECIMAL = /^(0|[1-9][0-9]*)$/

export interface AtomicUtxosContext {
  networkId: number
  /** the network's P, X and C chain IDs (CB58) */
  ids: { P: string; X: string; C: string }
  /** every chain the node runs, C first */
  chains: readonly DeclaredChain[]
}

interface KnownChain {
  id: string
  evm: boolean
}

function knownChains(ctx: AtomicUtxosContext): { byAlias: Map<string, KnownChain>; byId: Map<string, KnownChain> } {
  const byAlias = new Map<string, KnownChain>()
  const byId = new Map<string, KnownChain>()
  for (const [key, aliases] of Object.entries(GENESIS_CHAIN_ALIASES)) {
    const chain = { id: ctx.ids[key as 'P' | 'X' | 'C'], evm: key === 'C' }
    byId.set(chain.id, chain)
    for (const alias of aliases) byAlias.set(alias, chain)
  }
  for (const d of ctx.chains) {
    const chain = { id: d.chainId, evm: isEvm(d.vm) }
    byId.set(d.chainId, chain)
    if (!byAlias.has(d.alias)) byAlias.set(d.alias, chain)
  }
  return { byAlias, byId }
}

/** The `atomicUtxos` member of a genesis file (undefined or null: none). Throws GenesisFieldError naming the field. */
export function parseGenesisAtomicUtxos(node: JsonNode | undefined, ctx: AtomicUtxosContext): GenesisAtomicUtxos[] {
  const items = arrayField(node, 'atomicUtxos')
  const known = knownChains(ctx)
  let total = 0
  return items.map((item, i) => {
    const path = `atomicUtxos[${i}]`
    const entry = parseEntry(item, path, ctx, known)
    total += entry.count
    if (total > MAX_GENESIS_ATOMIC_UTXOS) {
      fieldFail(`${path}.count`, `the list seeds more than ${MAX_GENESIS_ATOMIC_UTXOS} UTXOs (${total} so far)`)
    }
    return entry
  })
}

function parseEntry(
  node: JsonNode,
  path: string,
  ctx: AtomicUtxosContext,
  known: ReturnType<typeof knownChains>,
): GenesisAtomicUtxos {
  if (node.kind !== 'object') {
    fieldFail(
      path,
      'expected an object {"sourceChain", "destinationChain", "address", "amount", "count"?, "locktime"?}',
    )
  }
  const f = objectFields(node, path, ENTRY_KEYS)
  for (const key of ['sourceChain', 'destinationChain', 'address', 'amount']) {
    if (!f.has(key)) fieldFail(`${path}.${key}`, 'missing')
  }
  const source = chainOf(stringField(f.get('sourceChain'), `${path}.sourceChain`), `${path}.sourceChain`, known)
  const dest = chainOf(
    stringField(f.get('destinationChain'), `${path}.destinationChain`),
    `${path}.destinationChain`,
    known,
  )
  if (!dest.evm) fieldFail(`${path}.destinationChain`, `${dest.id} is not an EVM chain this node runs`)
  if (source.id === dest.id) fieldFail(`${path}.sourceChain`, 'the source chain is the destination chain')
  const amount = decimal(f.get('amount'), `${path}.amount`)
  if (amount === 0n) fieldFail(`${path}.amount`, 'must be at least 1 nAVAX')
  const countNode = f.get('count')
  let count = 1
  if (countNode !== undefined && countNode.kind !== 'null') {
    if (countNode.kind !== 'number' || !/^[1-9][0-9]*$/.test(countNode.raw)) {
      fieldFail(
        `${path}.count`,
        `expected a positive JSON integer, got ${countNode.kind === 'number' ? countNode.raw : `a ${countNode.kind}`}`,
      )
    }
    if (countNode.raw.length > 7 || Number(countNode.raw) > MAX_GENESIS_ATOMIC_UTXOS) {
      fieldFail(`${path}.count`, `at most ${MAX_GENESIS_ATOMIC_UTXOS}, got ${countNode.raw}`)
    }
    count = Number(countNode.raw)
  }
  const locktimeNode = f.get('locktime')
  const locktime =
    locktimeNode === undefined || locktimeNode.kind === 'null' ? 0n : decimal(locktimeNode, `${path}.locktime`)
  return {
    sourceChain: source.id,
    destinationChain: dest.id,
    address: ownerOf(f.get('address'), `${path}.address`, ctx.networkId, known.byAlias),
    amount: amount.toString(),
    count,
    locktime: locktime.toString(),
  }
}

/** A uint64 written as a decimal string. */
function decimal(node: JsonNode | undefined, path: string): bigint {
  if (node?.kind !== 'string' || !DECIMAL.test(node.value)) {
    const got = node === undefined ? 'nothing' : node.kind === 'string' ? JSON.stringify(node.value) : `a ${node.kind}`
    fieldFail(path, `expected a decimal string (digits only, e.g. "1000000000"), got ${got}`)
  }
  const n = BigInt(node.value)
  if (n > MAX_U64) fieldFail(path, `${node.value} does not fit 64 bits`)
  return n
}

function chainOf(text: string, path: string, known: ReturnType<typeof knownChains>): KnownChain {
  const byAlias = known.byAlias.get(text)
  if (byAlias !== undefined) return byAlias
  let id: string | undefined
  try {
    id = idToString(idFromString(text))
  } catch {
    id = undefined
  }
  const byId = id === undefined ? undefined : known.byId.get(id)
  if (byId === undefined) {
    fieldFail(
      path,
      `unknown chain ${JSON.stringify(text)}: expected P, X, C (or platform, avm, evm), a declared chain's name, or the CB58 ID of one of those chains`,
    )
  }
  return byId
}

/** A CB58 short ID, or `<known alias>-<network hrp>1...` with a 20-byte payload -> 0x hex. */
function ownerOf(
  node: JsonNode | undefined,
  path: string,
  networkId: number,
  aliases: Map<string, KnownChain>,
): string {
  const text = stringField(node, path)
  try {
    return `0x${Buffer.from(shortIdFromString(text)).toString('hex')}`
  } catch {
    // not a short ID: an address
  }
  const sep = text.indexOf('-')
  if (sep === -1) fieldFail(path, `not a CB58 short ID nor an address <chain>-<hrp>1...: ${JSON.stringify(text)}`)
  const alias = text.slice(0, sep)
  if (!aliases.has(alias)) fieldFail(path, `unknown chain alias ${JSON.stringify(alias)} in address ${text}`)
  let decoded: { hrp: string; payload: Uint8Array }
  try {
    decoded = bech32Decode(text.slice(sep + 1))
  } catch (err) {
    return fieldFail(path, `invalid bech32 address ${JSON.stringify(text)}: ${(err as Error).message}`)
  }
  const hrp = networkHrp(networkId)
  if (decoded.hrp !== hrp) fieldFail(path, `expected hrp "${hrp}" but got "${decoded.hrp}" in address ${text}`)
  if (decoded.payload.length !== 20) {
    fieldFail(path, `expected 20 bytes but got ${decoded.payload.length} in address ${text}`)
  }
  return `0x${Buffer.from(decoded.payload).toString('hex')}`
}
