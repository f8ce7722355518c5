/**
 * The C chain's blocks as Snowman sees them: containers are signed envelopes (signed-block.ts) around EVM block
 * RLP, the block ID is the EVM hash. Normal-operation verification checks the proposer window (the signer must be
 * the slot's expected proposer, actors/consensus/proposer.ts) and then the EVM rules and re-execution; building
 * signs the block with the staking key. Accepted blocks keep their proposer signature in the chain's `proposer`
 * sublevel, written in the block's own accept batch, so Get and GetAncestors serve signed containers.
 * Bootstrapping executes blocks without the proposer check (the chain of hashes ends in an ID a stake majority
 * accepted).
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { checkProposer, type WeightedValidator } from '../../../actors/consensus/proposer.js'
import type { AcceptedRef, ParsedBlock } from '../../../actors/consensus/types.js'
import type { StakingIdentity } from '../../identity/staking.js'
import { type AvaHeader, decodeBlock, headerHash } from '../evm/header.js'
import { headerTimeMs } from '../evm/rules/child-header.js'
import type { EvmVm } from '../evm/vm.js'
import { decodeSignedBlock, encodeSignedBlock, type SignedBlock, signBlock, signerOf } from './signed-block.js'

/** the sublevel of the chain's database holding accepted blocks' proposer signatures */
export const PROPOSER_SUBLEVEL = 'proposer'

export interface EvmBlocksDeps {
  vm: EvmVm
  /** the chain ID's 32 bytes (the proposer seed and the signature's domain) */
  chainId: Uint8Array
  identity: Pick<StakingIdentity, 'privateKey' | 'certDer' | 'nodeId'>
  /** the proposer set; empty = anyone builds, unsigned */
  proposers: () => readonly WeightedValidator[]
  now?: () => number
}

/** A build: a signed block, no tx to put in one, or my slot passed while building (try at my next slot). */
export type BuildResult = { kind: 'built'; block: ParsedBlock } | { kind: 'empty' } | { kind: 'notMySlot' }

interface Parsed extends ParsedBlock {
  signed: SignedBlock
  signer: string | undefined
}

const plain = (b: Uint8Array | undefined): Uint8Array | undefined =>
  b === undefined || b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength)

export class EvmBlocks {
  readonly #now: () => number
  /** containers of blocks parsed, built or verified and not yet decided, by ID */
  readonly #containers = new Map<string, Uint8Array>()
  readonly #sigs: ReturnType<EvmVm['core']['store']['sublevel']>

  constructor(private readonly deps: EvmBlocksDeps) {
    this.#now = deps.now ?? Date.now
    this.#sigs = deps.vm.core.store.sublevel(PROPOSER_SUBLEVEL)
  }

  get vm(): EvmVm {
    return this.deps.vm
  }

  lastAccepted(): AcceptedRef {
    const { hash, header } = this.deps.vm.lastAccepted()
    return { id: bytesToHex(hash), height: Number(header.number) }
  }

  /** Parse a container (no verification); undefined if it is not a well-formed signed block. */
  parse(container: Uint8Array): Parsed | undefined {
    try {
      // received bytes may be views into socket buffers: keep a copy of our own
      const bytes = new Uint8Array(container)
      const signed = decodeSignedBlock(bytes)
      const { header } = decodeBlock(signed.block)
      const hash = headerHash(header)
      const signer = signerOf(signed, this.deps.chainId, hash)
      return {
        id: bytesToHex(hash),
        parentId: bytesToHex(header.parentHash),
        height: Number(header.number),
        timestampMs: Number(headerTimeMs(header)),
        bytes,
        signed,
        signer,
      }
    } catch {
      return undefined
    }
  }

  /** Normal operation: the proposer window, then the EVM rules and execution. Throws with the reason. */
  async verify(block: ParsedBlock): Promise<void> {
    const parsed = this.parse(block.bytes)
    if (parsed === undefined) throw new Error('unparsable block')
    const parentRlp = await this.deps.vm.core.getBlockByHash(hexToBytes(parsed.parentId as `0x${string}`))
    if (parentRlp === undefined) throw new Error(`unknown parent ${parsed.parentId}`)
    const parent = decodeBlock(parentRlp).header
    const why = checkProposer(
      this.deps.proposers(),
      this.deps.chainId,
      BigInt(parsed.height),
      Number(headerTimeMs(parent)),
      parsed.timestampMs,
      parsed.signer,
      this.#now(),
    )
    if (why !== null) throw new Error(why)
    await this.deps.vm.verifyBlock(parsed.signed.block)
    this.#containers.set(parsed.id, block.bytes)
  }

  /**
   * Build on the preferred block and sign it. The block is dropped when it holds no tx, or when its time no longer
   * falls in one of my slots.
   */
  async build(): Promise<BuildResult> {
    const { vm } = this.deps
    const built = await vm.buildBlock()
    const id = bytesToHex(built.hash)
    const parentRlp = await vm.core.getBlockByHash(built.header.parentHash)
    const parentTs = parentRlp === undefined ? 0 : Number(headerTimeMs(decodeBlock(parentRlp).header))
    const ts = Number(headerTimeMs(built.header))
    const proposers = this.deps.proposers()
    const mine =
      proposers.length === 0 ||
      checkProposer(proposers, this.deps.chainId, built.header.number, parentTs, ts, this.deps.identity.nodeId, ts) ===
        null
    if (built.txs.length === 0 || !mine) {
      await vm.rejectBlock(built.hash)
      return { kind: built.txs.length === 0 ? 'empty' : 'notMySlot' }
    }
    const signed: SignedBlock =
      proposers.length === 0
        ? { block: built.rlp, certificate: new Uint8Array(0), signature: new Uint8Array(0) }
        : signBlock(this.deps.identity, this.deps.chainId, built.hash, built.rlp)
    const bytes = encodeSignedBlock(signed)
    this.#containers.set(id, bytes)
    return {
      kind: 'built',
      block: {
        id,
        parentId: bytesToHex(built.header.parentHash),
        height: Number(built.header.number),
        timestampMs: ts,
        bytes,
      },
    }
  }

  async accept(id: string): Promise<void> {
    const hash = hexToBytes(id as `0x${string}`)
    const container = this.#containers.get(id)
    const sig = container === undefined ? undefined : decodeSignedBlock(container)
    const extra =
      sig === undefined || sig.certificate.length === 0
        ? []
        : [
            {
              sublevel: this.#sigs,
              key: hash,
              value: encodeSignedBlock({
                block: new Uint8Array(0),
                certificate: sig.certificate,
                signature: sig.signature,
              }),
            },
          ]
    await this.deps.vm.acceptBlock(hash, extra)
    this.#containers.delete(id)
  }

  async reject(id: string): Promise<void> {
    this.#containers.delete(id)
    await this.deps.vm.rejectBlock(hexToBytes(id as `0x${string}`))
  }

  setPreference(id: string): void {
    this.deps.vm.setPreference(hexToBytes(id as `0x${string}`))
  }

  /** A processing or accepted block's container (accepted ones with their kept signature), for Get / Ancestors. */
  async container(id: string): Promise<{ bytes: Uint8Array; parentId: string; height: number } | undefined> {
    const known = this.#containers.get(id)
    const hash = hexToBytes(id as `0x${string}`)
    if (known !== undefined) {
      const { header } = decodeBlock(decodeSignedBlock(known).block)
      return { bytes: known, parentId: bytesToHex(header.parentHash), height: Number(header.number) }
    }
    const resolved = await this.#accepted(hash)
    if (resolved === undefined) return undefined
    const kept = plain(await this.#sigs.get(hash).catch(() => undefined))
    const sig = kept === undefined ? undefined : decodeSignedBlock(kept)
    const bytes = encodeSignedBlock({
      block: resolved.rlp,
      certificate: sig?.certificate ?? new Uint8Array(0),
      signature: sig?.signature ?? new Uint8Array(0),
    })
    return { bytes, parentId: bytesToHex(resolved.header.parentHash), height: Number(resolved.header.number) }
  }

  /** The accepted block ID at `height`, if any. */
  async acceptedIdAt(height: number): Promise<string | undefined> {
    const hash = await this.deps.vm.core.store.canonicalHash(BigInt(height))
    return hash === undefined ? undefined : bytesToHex(hash)
  }

  async isAccepted(id: string): Promise<boolean> {
    return (await this.#accepted(hexToBytes(id as `0x${string}`))) !== undefined
  }

  /** An accepted (canonical) block by hash. */
  async #accepted(hash: Uint8Array): Promise<{ rlp: Uint8Array; header: AvaHeader } | undefined> {
    const { store } = this.deps.vm.core
    const rlp = await store.getBlock(hash)
    if (rlp === undefined) return undefined
    const { header } = decodeBlock(rlp)
    const canonical = await store.canonicalHash(header.number)
    return canonical !== undefined && bytesToHex(canonical) === bytesToHex(hash) ? { rlp, header } : undefined
  }

  /** Bootstrapping: execute and accept a block whose parent is the last accepted block; keeps its signature. */
  async executeAccepted(block: ParsedBlock): Promise<void> {
    const parsed = this.parse(block.bytes)
    if (parsed === undefined) throw new Error(`unparsable block ${block.id}`)
    await this.deps.vm.verifyBlock(parsed.signed.block)
    this.#containers.set(parsed.id, block.bytes)
    await this.accept(parsed.id)
  }
}
