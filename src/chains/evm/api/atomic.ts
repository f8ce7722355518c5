/**
 * The EVM chain's native-token API, `/ext/bc/<chain>/avax` (`avax.*`) and `/ext/bc/<chain>/native` (`native.*`),
 * in the node APIs' (gorilla) dialect. So far: `getUTXOs` (the atomic UTXOs another chain exported to this one,
 * waiting in shared memory, paged as the reference pages them: ../shared/reference/cchain.md 1.3) and `version`
 * (the EVM's version, as `vmVersions.evm`). issueTx, getAtomicTxStatus and getAtomicTx come with the atomic mempool.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { idFromString, idToString } from '../../../identity/ids.js'
import { array, fields, noParams, object, str, uint32 } from '../../../rpc/params.js'
import { defineMethod, type RpcService } from '../../../rpc/service.js'
import { FirnError } from '../../../runtime/errors.js'
import type { ChainSharedMemory } from '../../shared-memory/shared-memory.js'
import { clampUtxoLimit, getChainAtomicUtxos } from '../../shared-memory/utxo-page.js'
import { type AddressContext, formatLocalAddress, parseServiceAddress } from '../atomic/address.js'
import { fromHex, toHex } from '../atomic/hex.js'

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
}

/** The reference's formatting.Encode: `hex` and `hexc` carry a 4-byte SHA-256 checksum, `hexnc` none. */
function encodeBytes(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'hexnc') return toHex(bytes)
  const sum = sha256(bytes).slice(-4)
  const out = new Uint8Array(bytes.length + 4)
  out.set(bytes)
  out.set(sum, bytes.length)
  return toHex(out)
}

const ENCODINGS = new Set(['hex', 'hexc', 'hexnc', 'json'])

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
          encoding: str,
        }),
        async (p) => {
          const encoding = p.encoding === '' ? 'hex' : p.encoding
          if (!ENCODINGS.has(encoding)) throw new FirnError(`invalid encoding '${encoding}'`)
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
      Version: defineMethod(noParams, () => ({ version: d.version })),
    },
  }
}

/** `avax.*` and `native.*`: the same methods under both names (the spec's `/native`, the reference's `/avax`). */
export function atomicServices(d: AtomicApiDeps): { avax: RpcService; native: RpcService } {
  return { avax: atomicService('avax', d), native: atomicService('native', d) }
}
