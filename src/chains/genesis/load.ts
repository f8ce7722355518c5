/**
 * `--genesis-file` / `--genesis-file-content`: the network genesis in the reference's format, extended with a
 * `chains` list (docs/operations.md, "Declaring chains"). The only IO is reading the file.
 *
 * - mainnet and Fuji refuse a genesis file (the reference's `overrides standard network genesis config`).
 * - The short form `{"chains": [...]}` (optionally with `networkID`, which must be the node's, and `message`) keeps the network preset's genesis and adds the
 *   chains; it is the only form on the local network (and so under `--dev`), where the reference refuses any file.
 * - The full form (any other reference field present) is for custom network IDs, as in the reference: every field
 *   is checked for its shape, then the reference's rules (the file's networkID must be the node's); its
 *   `cChainGenesis` becomes the C chain's genesis and its `initialStakers` the genesis validators.
 *
 * Either form may carry `atomicUtxos` (atomic-utxos.ts): UTXOs seeded into shared memory at the first start.
 *
 * The result lists every chain the node runs, the preset's C chain first (its ID stays the preset's).
 */
import { readFileSync } from 'node:fs'
import { chainIds } from '../../config/chain-ids.js'
import { NetworkId, networkName } from '../../config/networks.js'
import { ConfigError } from '../../config/sources.js'
import { GoJsonSyntaxError, type JsonNode, parseGoJson } from '../evm/config/go-json.js'
import { presetCChainGenesis } from '../evm/rules/cchain-genesis-json.js'
import { evmPresetFromGenesis } from '../evm/rules/genesis-json.js'
import { EvmGenesisError } from '../evm/rules/genesis-json-values.js'
import { type GenesisAtomicUtxos, parseGenesisAtomicUtxos } from './atomic-utxos.js'
import { type DeclaredChain, parseChainDeclarations } from './declarations.js'
import { fieldFail, fieldPath, GenesisFieldError, objectFields, stringField, toPlain, uintField } from './json-node.js'
import { NETWORK_GENESIS_KEYS, parseNetworkGenesisConfig } from './network.js'
import { genesisStakerWeights, validateNetworkGenesis } from './network-rules.js'

export type { GenesisAtomicUtxos } from './atomic-utxos.js'
export type { DeclaredChain } from './declarations.js'

/** Largest genesis file Firn reads. */
export const MAX_GENESIS_BYTES = 16 * 1024 * 1024
export const CONTENT_ORIGIN = '(--genesis-file-content)'

export interface NetworkGenesis {
  /** where it came from: `preset`, the file's path, or `(--genesis-file-content)` */
  origin: string
  /** every chain this node runs, the network preset's C chain first */
  chains: DeclaredChain[]
  /** the file's initialStakers and their stake (decimal nAVAX); absent: the network preset's validators */
  validators?: { nodeId: string; weight: string }[]
  /** the file's `atomicUtxos` (atomic-utxos.ts), seeded into shared memory once per data dir; absent: none */
  atomicUtxos?: GenesisAtomicUtxos[]
}

export interface GenesisSource {
  /** `--genesis-file`, resolved ('' = none) */
  file: string
  /** `--genesis-file-content`, base64 ('' = none); it wins over the file, as in the reference */
  content: string
}

export interface GenesisOptions {
  networkId: number
  /** `--dev` or `--dev-speed`: the EVM genesis is checked with the presets' dev timing */
  dev: boolean
  /** now, unix seconds (the reference refuses a startTime in the future) */
  nowSec: number
}

const LOAD_FAILED = 'unable to load genesis file'
/** the fields of the short form: the preset's genesis plus chains (and UTXOs to seed) */
const SHORT_FORM_KEYS = ['chains', 'atomicUtxos', 'networkID', 'message']

/** The preset's chains, or the genesis file's. Throws ConfigError with the file and the field. */
export function loadNetworkGenesis(source: GenesisSource, opts: GenesisOptions): NetworkGenesis {
  if (source.content === '' && source.file === '') return presetGenesis(opts.networkId)
  const { text, origin } = readGenesisText(source)
  return parseNetworkGenesis(text, origin, opts)
}

export function presetGenesis(networkId: number): NetworkGenesis {
  return { origin: 'preset', chains: [cChain(networkId, presetCChainGenesis(networkId))] }
}

function cChain(networkId: number, genesis: unknown): DeclaredChain {
  return { chainId: chainIds(networkId).C, alias: 'C', vm: 'evm', genesis }
}

function readGenesisText(source: GenesisSource): { text: string; origin: string } {
  if (source.content !== '') {
    const body = source.content.trim()
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0) {
      throw new ConfigError(`${LOAD_FAILED}: unable to load genesis content from flag: unable to decode base64 content`)
    }
    return { text: Buffer.from(body, 'base64').toString('utf8'), origin: CONTENT_ORIGIN }
  }
  try {
    const bytes = readFileSync(source.file)
    if (bytes.length > MAX_GENESIS_BYTES) throw new Error(`larger than ${MAX_GENESIS_BYTES} bytes`)
    return { text: bytes.toString('utf8'), origin: source.file }
  } catch (err) {
    throw new ConfigError(
      `${LOAD_FAILED}: unable to load provided genesis config at ${source.file}: ${(err as Error).message}`,
    )
  }
}

/** A genesis file's text -> the chains (pure). */
export function parseNetworkGenesis(text: string, origin: string, opts: GenesisOptions): NetworkGenesis {
  let root: JsonNode
  try {
    root = parseGoJson(text)
  } catch (err) {
    if (!(err instanceof GoJsonSyntaxError)) throw err
    throw new ConfigError(`${LOAD_FAILED} ${origin}: could not unmarshal genesis JSON: ${err.message}`)
  }
  try {
    return fromDocument(root, origin, opts)
  } catch (err) {
    if (err instanceof GenesisFieldError) throw new ConfigError(`${LOAD_FAILED} ${origin}: ${err.message}`)
    throw err
  }
}

function fromDocument(root: JsonNode, origin: string, opts: GenesisOptions): NetworkGenesis {
  const { networkId } = opts
  if (networkId === NetworkId.mainnet || networkId === NetworkId.fuji) {
    fieldFail('', `overrides standard network genesis config: ${networkName(networkId)}`)
  }
  if (root.kind !== 'object') fieldFail('', 'expected a JSON object (the network genesis, or {"chains": [...]})')
  const fields = objectFields(root, '', [...NETWORK_GENESIS_KEYS, 'chains', 'atomicUtxos'])
  const referenceFields = [...fields.keys()].filter((k) => !SHORT_FORM_KEYS.includes(k))
  const ids = chainIds(networkId)
  const takenIds = new Map([
    [ids.P, 'the P chain'],
    [ids.X, 'the X chain'],
    [ids.C, 'the C chain'],
  ])
  const chainsNode = fields.get('chains')
  const chains = chainsNode === undefined ? undefined : toPlain(chainsNode, 'chains')
  if (referenceFields.length === 0) {
    stringField(fields.get('message'), 'message')
    const fileNetworkId = fields.has('networkID')
      ? Number(uintField(fields.get('networkID'), 'networkID', 32))
      : networkId
    if (fileNetworkId !== networkId) {
      fieldFail('networkID', `conflicting networkIDs: expected ${networkId} but config contains ${fileNetworkId}`)
    }
    const declared = parseChainDeclarations(chains, { networkId, dev: opts.dev, takenIds })
    const all = [cChain(networkId, presetCChainGenesis(networkId)), ...declared]
    return { origin, chains: all, ...atomicUtxosOf(fields.get('atomicUtxos'), networkId, all) }
  }
  if (networkId === NetworkId.local) {
    fieldFail(
      referenceFields[0]!,
      'overrides standard network genesis config: local (on the local network a genesis file holds only "chains", "atomicUtxos", "networkID" and "message")',
    )
  }
  const config = parseNetworkGenesisConfig(fields)
  validateNetworkGenesis(config, networkId, opts.nowSec)
  const cGenesis = cChainGenesisJson(config.cChainGenesis, opts)
  const declared = parseChainDeclarations(chains, { networkId, dev: opts.dev, takenIds })
  const all = [cChain(networkId, cGenesis), ...declared]
  return {
    origin,
    chains: all,
    validators: genesisStakerWeights(config),
    ...atomicUtxosOf(fields.get('atomicUtxos'), networkId, all),
  }
}

/** `{ atomicUtxos }` when the file lists any, else nothing. */
function atomicUtxosOf(
  node: JsonNode | undefined,
  networkId: number,
  chains: DeclaredChain[],
): { atomicUtxos?: GenesisAtomicUtxos[] } {
  const atomicUtxos = parseGenesisAtomicUtxos(node, { networkId, ids: chainIds(networkId), chains })
  return atomicUtxos.length === 0 ? {} : { atomicUtxos }
}

/** The cChainGenesis string: JSON the EVM can run (checked now, so a bad one stops the node before it starts). */
function cChainGenesisJson(text: string, opts: GenesisOptions): unknown {
  let json: unknown
  try {
    json = toPlain(parseGoJson(text), 'cChainGenesis')
  } catch (err) {
    if (!(err instanceof GoJsonSyntaxError)) throw err
    fieldFail('cChainGenesis', `not JSON: ${err.message}`)
  }
  try {
    evmPresetFromGenesis(json, { networkId: opts.networkId, dev: opts.dev })
  } catch (err) {
    if (err instanceof EvmGenesisError) fieldFail(fieldPath('cChainGenesis', err.path), err.problem)
    throw err
  }
  return json
}
