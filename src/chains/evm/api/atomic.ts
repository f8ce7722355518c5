/**
 * The EVM chain's native-token API, `/ext/bc/<chain>/avax` (`avax.*`) and `/ext/bc/<chain>/native` (`native.*`),
 * in the node APIs' (gorilla) dialect (../shared/reference/cchain.md 1):
 * - `getUTXOs`: the atomic UTXOs another chain exported to this one, waiting in shared memory, paged as the
 *   reference pages them;
 * - `issueTx`: a signed import or export into the atomic mempool (then gossiped); one already pending answers its ID;
 * - `getAtomicTxStatus` (`Accepted` with `blockHeight`, `Processing`, `Dropped`, `Unknown`) and `getAtomicTx`;
 * - `version`: the EVM's version, as `vmVersions.evm` (the spec keeps it; the reference has since removed it).
 * Encodings: `hex` and `hexc` carry a 4-byte SHA-256 checksum, `hexnc` none; a bad encoding name is an argument
 * error, as the reference's decoder makes it.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { idFromString, idToString } from '../../../identity/ids.js'
import { argumentError, array, custom, fields, noParams, object, str, uint32 } from '../../../rpc/params.js'
import { defineMethod, type RpcService } from '../../../rpc/service.js'
import { FirnError } from '../../../runtime/errors.js'
import type { ChainSharedMemory } from '../../shared-memory/shared-memory.js'
import { clampUtxoLimit, getChainAtomicUtxos } from '../../shared-memory/utxo-page.js'
import { type AddressContext, formatLocalAddress, parseServiceAddress } from '../atomic/address.js'
import type { AtomicStatus, FoundAtomicTx } from '../atomic/backend.js'
import { EMPTY_ID, fromHex, toHex } from '../atomic/hex.js'
import { type DecodedTx, decodeSignedTx, idCb58 } from '../atomic/ids.js'
import type { Hex } from '../atomic/types.js'

/** the reference's maxGetUTXOsAddrs */
export const MAX_GET_UTXOS_ADDRESSES = 1024

export interface AtomicApiDeps {
  networkId: number
  /** this chain's ID (CB58) and primary alias */
  chainId: string
  alias: string
  memory: ChainSharedMemory
  /** an alias or CB58 chain ID -> the chain ID (CB58); throws `there is no ID with alias: <a>` */
  lookupChain: (alias: string) => string
  /** the EVM's version (`v<semver>`) */
  version: string
  /** the chain's atomic txs; absent: issueTx, getAtomicTxStatus and getAtomicTx answer that the chain takes none */
  txs?: AtomicTxApi
}

/** What the API asks of the chain's atomic backend. */
export interface AtomicTxApi {
  /** into the mempool (verified on the preferred state), then gossiped; a tx already pending is no error */
  issue(d: DecodedTx): Promise<void>
  status(id: Hex): Promise<AtomicStatus>
  find(id: Hex): Promise<FoundAtomicTx | undefined>
}

/** The reference's formatting.Encode: `hex` and `hexc` carry a 4-byte SHA-256 checksum, `hexnc` none. */
export function encodeBytes(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'hexnc') return toHex(bytes)
  const sum = sha256(bytes).slice(-4)
  const out = new Uint8Array(bytes.length + 4)
  out.set(bytes)
  out.set(sum, bytes.length)
  return toHex(out)
}

const ENCODINGS = new Set(['hex', 'hexc', 'hexnc', 'json'])

/** An `encoding` argument: case-insensitive, `hex` when empty; an unknown name is an argument error. */
const encodingArg = custom((v: unknown) => {
  if (typeof v !== 'string') throw argumentError()
  const e = v.toLowerCase()
  if (e === '') return 'hex'
  if (!ENCODINGS.has(e)) throw argumentError()
  return e
}, 'hex')

/** The reference's formatting.Decode: `missing 0x prefix to hex encoding`, the checksum's texts, Go's hex texts. */
export function decodeBytes(text: string, encoding: string): Uint8Array {
  if (encoding === 'json') throw new FirnError('unsupported encoding in method')
  if (text === '') return new Uint8Array(0)
  if (!text.startsWith('0x')) throw new FirnError('missing 0x prefix to hex encoding')
  const body = text.slice(2)
  const bad = body.search(/[^0-9a-fA-F]/)
  if (bad >= 0) {
    const code = body.charCodeAt(bad).toString(16).toUpperCase().padStart(4, '0')
    throw new FirnError(`encoding/hex: invalid byte: U+${code} '${body[bad]}'`)
  }
  if (body.length % 2 !== 0) throw new FirnError('encoding/hex: odd length hex string')
  const bytes = Uint8Array.from(Buffer.from(body, 'hex'))
  if (encoding === 'hexnc') return bytes
  if (bytes.length < 4) throw new FirnError('input string is smaller than the checksum size')
  const data = bytes.subarray(0, bytes.length - 4)
  const sum = sha256(data).subarray(28)
  if (!sum.every((b, i) => b === bytes[bytes.length - 4 + i])) throw new FirnError('invalid input checksum')
  return new Uint8Array(data)
}

/** An ID argument: CB58, or empty (a bad one is an argument error). */
const idArg = custom((v: unknown) => {
  if (typeof v !== 'string') throw argumentError()
  if (v !== '') idFromString(v)
  return v
}, '')

/** A tx ID argument: `nil transaction ID` when missing or all zero. */
function txIdArg(text: string): Hex {
  if (text === '') throw new FirnError('nil transaction ID')
  const id = toHex(idFromString(text))
  if (id === EMPTY_ID) throw new FirnError('nil transaction ID')
  return id
}

function atomicService(name: 'avax' | 'native', d: AtomicApiDeps): RpcService {
  const chainIdHex = toHex(idFromString(d.chainId))
  const addressCtx: AddressContext = {
    networkId: d.networkId,
    chainId: chainIdHex,
    lookup: (alias) => toHex(idFromString(d.lookupChain(alias))),
    primaryAlias: d.alias,
  }
  return {
    name,
    methods: {
      GetUTXOs: defineMethod(
        fields({
          addresses: array(str),
          sourceChain: str,
          limit: uint32,
          startIndex: object({ address: str, utxo: str }),
          encoding: encodingArg,
        }),
        async (p) => {
          const { encoding } = p
          const given = p.addresses ?? []
          if (given.length === 0) throw new FirnError('no addresses provided')
          if (given.length > MAX_GET_UTXOS_ADDRESSES) {
            throw new FirnError(
              `number of addresses given, ${given.length}, exceeds maximum, ${MAX_GET_UTXOS_ADDRESSES}`,
            )
          }
          if (p.sourceChain === '') throw new FirnError('no source chain provided')
          let source: string
          try {
            source = d.lookupChain(p.sourceChain)
          } catch (e) {
            throw new FirnError(`problem parsing source chainID "${p.sourceChain}": ${(e as Error).message}`)
          }
          const addresses = given.map((a) => {
            try {
              return fromHex(parseServiceAddress(addressCtx, a), 20, 'address')
            } catch (e) {
              throw new FirnError(`couldn't parse address "${a}": ${(e as Error).message}`)
            }
          })
          let startAddress: Uint8Array | undefined
          let startUtxo: Uint8Array | undefined
          if (p.startIndex.address !== '' || p.startIndex.utxo !== '') {
            try {
              startAddress = fromHex(parseServiceAddress(addressCtx, p.startIndex.address), 20, 'address')
            } catch (e) {
              throw new FirnError(
                `couldn't parse start index address "${p.startIndex.address}": ${(e as Error).message}`,
              )
            }
            try {
              startUtxo = idFromString(p.startIndex.utxo)
            } catch (e) {
              throw new FirnError(`couldn't parse start index utxo: ${(e as Error).message}`)
            }
          }
          const page = await getChainAtomicUtxos(
            d.memory,
            source,
            addresses,
            startAddress,
            startUtxo,
            clampUtxoLimit(p.limit),
          )
          if (encoding === 'json' && page.utxos.length > 0) {
            throw new FirnError('problem encoding utxo: unsupported encoding in method')
          }
          return {
            numFetched: String(page.utxos.length),
            utxos: page.utxos.map((u) => encodeBytes(u, encoding)),
            endIndex: {
              address: formatLocalAddress(addressCtx, toHex(page.endAddress)),
              utxo: idToString(page.endUtxoId),
            },
            encoding,
          }
        },
      ),
      IssueTx: defineMethod(fields({ tx: str, encoding: encodingArg }), async (p) => {
        const txs = takesAtomicTxs(d)
        let bytes: Uint8Array
        try {
          bytes = decodeBytes(p.tx, p.encoding)
        } catch (e) {
          throw new FirnError(`problem decoding transaction: ${(e as Error).message}`)
        }
        let decoded: DecodedTx
        try {
          decoded = decodeSignedTx(bytes)
        } catch (e) {
          throw new FirnError(`problem parsing transaction: ${(e as Error).message}`)
        }
        await txs.issue(decoded)
        return { txID: idCb58(decoded.id) }
      }),
      GetAtomicTxStatus: defineMethod(fields({ txID: idArg }), async (p) => {
        const status = await takesAtomicTxs(d).status(txIdArg(p.txID))
        return status.status === 'Accepted'
          ? { status: status.status, blockHeight: String(status.blockHeight) }
          : { status: status.status }
      }),
      GetAtomicTx: defineMethod(fields({ txID: idArg, encoding: encodingArg }), async (p) => {
        const id = txIdArg(p.txID)
        const found = await takesAtomicTxs(d).find(id)
        if (found === undefined) throw new FirnError(`could not find tx ${idCb58(id)}`)
        if (p.encoding === 'json') throw new FirnError('unsupported encoding in method')
        return {
          tx: encodeBytes(found.bytes, p.encoding),
          encoding: p.encoding,
          ...(found.blockHeight === undefined ? {} : { blockHeight: String(found.blockHeight) }),
        }
      }),
      Version: defineMethod(noParams, () => ({ version: d.version })),
    },
  }
}

function takesAtomicTxs(d: AtomicApiDeps): AtomicTxApi {
  if (d.txs === undefined) throw new FirnError('this chain takes no atomic transactions')
  return d.txs
}

/** `avax.*` and `native.*`: the same methods under both names (the spec's `/native`, the reference's `/avax`). */
export function atomicServices(d: AtomicApiDeps): { avax: RpcService; native: RpcService } {
  return { avax: atomicService('avax', d), native: atomicService('native', d) }
}
