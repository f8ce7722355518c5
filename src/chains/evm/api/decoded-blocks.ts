/**
 * The last accepted blocks a tx lookup decoded, by hash, with their txs decoded as they are asked for. An accepted
 * block never changes and a decoded tx is frozen (ethereumjs), so lookups share them: a client polling the
 * receipts of a block's txs decoded the whole block (and the tx) once per receipt, a fifth of a transfer's CPU
 * under the shared harness's load (docs/performance.md).
 */
import type { Common } from '@ethereumjs/common'
import { bytesToHex } from '@ethereumjs/util'
import { remember } from '../../../runtime/bounded-map.js'
import { type AvaHeader, decodeBlock } from '../header.js'
import { decodeTx } from './read-format.js'

/** blocks kept */
export const DECODED_BLOCKS = 16

type Tx = ReturnType<typeof decodeTx>
interface Decoded {
  header: AvaHeader
  txs: Uint8Array[]
  decoded: (Tx | undefined)[]
}

export class DecodedBlocks {
  readonly #blocks = new Map<string, Decoded>()

  constructor(
    readonly core: { getBlockByHash(hash: Uint8Array): Promise<Uint8Array | undefined> },
    readonly common: Common,
  ) {}

  /** The tx at `index` of the accepted block `hash`: the block's header, the tx's bytes and the decoded tx. */
  async tx(hash: Uint8Array, index: number): Promise<{ header: AvaHeader; raw: Uint8Array; tx: Tx } | undefined> {
    const block = await this.#block(hash)
    const raw = block?.txs[index]
    if (block === undefined || raw === undefined) return undefined
    let tx = block.decoded[index]
    if (tx === undefined) {
      tx = decodeTx(this.common, raw)
      block.decoded[index] = tx
    }
    return { header: block.header, raw, tx }
  }

  async #block(hash: Uint8Array): Promise<Decoded | undefined> {
    const key = bytesToHex(hash)
    const hit = this.#blocks.get(key)
    if (hit !== undefined) return hit
    const rlp = await this.core.getBlockByHash(hash)
    if (rlp === undefined) return undefined
    const { header, txs } = decodeBlock(rlp)
    return remember(this.#blocks, key, { header, txs, decoded: [] }, DECODED_BLOCKS)
  }
}
