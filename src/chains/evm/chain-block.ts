/**
 * The EVM's blocks as the chain VM interface sees them (src/chains/vm.ts `VmBlock`): the block's RLP is its bytes,
 * its hash (0x hex) its ID, its header's millisecond time its timestamp. verify = the parent's rules and
 * re-execution (a block already processing was executed when it was built or verified: nothing to do); accept
 * writes the block with the extra puts in one batch; reject drops it and every block built on it.
 */
import { bytesToHex } from '@ethereumjs/util'
import type { ExtraWrite, VmBlock } from '../vm.js'
import { type AvaHeader, decodeBlock, headerHash } from './header.js'
import { headerTimeMs } from './rules/child-header.js'
import type { EvmVm } from './vm.js'

export class EvmBlock implements VmBlock {
  readonly id: string
  readonly parentId: string
  readonly height: number
  readonly timestampMs: number

  constructor(
    private readonly evm: EvmVm,
    readonly hash: Uint8Array,
    readonly header: AvaHeader,
    readonly bytes: Uint8Array,
    /** its EVM transactions (every path that makes one has them decoded already) */
    readonly txCount: number,
  ) {
    this.id = bytesToHex(hash)
    this.parentId = bytesToHex(header.parentHash)
    this.height = Number(header.number)
    this.timestampMs = Number(headerTimeMs(header))
  }

  /** Decodes a block's RLP; throws when the bytes are not an EVM block. */
  static parse(evm: EvmVm, rlp: Uint8Array): EvmBlock {
    const { header, txs } = decodeBlock(rlp)
    return new EvmBlock(evm, headerHash(header), header, rlp, txs.length)
  }

  async verify(): Promise<void> {
    if (this.evm.core.executor.pending.has(this.id)) return
    await this.evm.verifyBlock(this.bytes)
  }

  accept(extra: readonly ExtraWrite[] = []): Promise<void> {
    return this.evm.acceptBlock(this.hash, extra)
  }

  reject(): Promise<void> {
    return this.evm.rejectBlock(this.hash)
  }
}
