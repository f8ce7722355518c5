/**
 * Any chain VM's blocks as Snowman sees them, as proposervm wraps any VM: a container is a signed envelope
 * (signed-block.ts) around the VM block's bytes, the block ID is the VM's. Normal-operation verification checks the
 * proposer window (the signer must be the slot's expected proposer, actors/consensus/proposer.ts) and then the VM's
 * own verify; building signs the VM's block with the staking key. Accepted blocks keep their proposer signature in
 * the chain's `proposer` sublevel, written in the block's own accept batch (`accept(extra)`), so Get and
 * GetAncestors serve signed containers. Bootstrapping executes blocks without the proposer check (the chain of IDs
 * ends in an ID a stake majority accepted).
 *
 * Nothing here knows the EVM: the EVM's containers and IDs are what they were before this layer was generalised
 * (the same envelope around the block's RLP, the block hash as ID, the signature under the hash's 32 bytes).
 */
import { checkProposer, type WeightedValidator } from '../../../actors/consensus/proposer.js'
import type { AcceptedRef, ParsedBlock } from '../../../actors/consensus/types.js'
import type { StakingIdentity } from '../../identity/staking.js'
import type { ChainDatabase, ChainVm, ExtraWrite, VmBlock } from '../vm.js'
import { decodeSignedBlock, encodeSignedBlock, type SignedBlock, signBlock, signerOf } from './signed-block.js'

/** the sublevel of the chain's database holding accepted blocks' proposer signatures */
export const PROPOSER_SUBLEVEL = 'proposer'

export interface SignedBlocksDeps {
  vm: ChainVm
  /** the chain's store (the VM's `ctx.db`): the signatures go in its `proposer` sublevel */
  db: ChainDatabase
  /** the chain ID's 32 bytes (the proposer seed and the signature's domain) */
  chainId: Uint8Array
  identity: Pick<StakingIdentity, 'privateKey' | 'certDer' | 'nodeId'>
  /** the proposer set; empty = anyone builds, unsigned */
  proposers: () => readonly WeightedValidator[]
  now?: () => number
}

/** A build: a signed block, nothing to put in one, or my slot passed while building (try at my next slot). */
export type BuildResult = { kind: 'built'; block: ParsedBlock } | { kind: 'empty' } | { kind: 'notMySlot' }

/** A parsed container: the engine's view, the signed envelope, its signer and the VM's block. */
export interface SignedParsed extends ParsedBlock {
  signed: SignedBlock
  signer: string | undefined
  block: VmBlock
}

interface Processing {
  container: Uint8Array
  block: VmBlock
}

const EMPTY = new Uint8Array(0)

const plain = (b: Uint8Array | undefined): Uint8Array | undefined =>
  b === undefined || b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength)

/** a 0x-hex block ID's bytes (what the proposer signs, and the signature's key) */
export function blockIdBytes(id: string): Uint8Array {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(id)) throw new Error(`malformed block ID ${id}`)
  return Uint8Array.from(Buffer.from(id.slice(2), 'hex'))
}

export class SignedBlocks {
  readonly #now: () => number
  /** blocks built or verified and not yet decided, with their containers, by ID */
  readonly #processing = new Map<string, Processing>()
  readonly #sigs: ExtraWrite['sublevel']
  /** the block new blocks build on, as consensus last said (the builder reads it) */
  #preferred: string

  constructor(private readonly deps: SignedBlocksDeps) {
    this.#now = deps.now ?? Date.now
    this.#sigs = deps.db.sublevel<Uint8Array, Uint8Array>(PROPOSER_SUBLEVEL, {
      keyEncoding: 'view',
      valueEncoding: 'view',
    })
    this.#preferred = deps.vm.lastAccepted().id
  }

  get vm(): ChainVm {
    return this.deps.vm
  }

  lastAccepted(): AcceptedRef {
    const { id, height } = this.deps.vm.lastAccepted()
    return { id, height }
  }

  /** the preferred block's ID: the last `setPreference`, or the last accepted block once that one is decided */
  get preferred(): string {
    return this.#preferred
  }

  /** Parse a container (no verification); undefined if it is not a well-formed signed block of the VM. */
  async parse(container: Uint8Array): Promise<SignedParsed | undefined> {
    try {
      // received bytes may be views into socket buffers: keep a copy of our own
      const bytes = new Uint8Array(container)
      const signed = decodeSignedBlock(bytes)
      const block = await this.deps.vm.parseBlock(signed.block)
      const signer = signerOf(signed, this.deps.chainId, blockIdBytes(block.id))
      const { id, parentId, height, timestampMs } = block
      return { id, parentId, height, timestampMs, bytes, signed, signer, block }
    } catch {
      return undefined
    }
  }

  /** Normal operation: the proposer window, then the VM's verify. Throws with the reason. */
  async verify(block: ParsedBlock): Promise<void> {
    const parsed = await this.parse(block.bytes)
    if (parsed === undefined) throw new Error('unparsable block')
    const parent = await this.deps.vm.getBlock(parsed.parentId)
    if (parent === undefined) throw new Error(`unknown parent ${parsed.parentId}`)
    const why = checkProposer(
      this.deps.proposers(),
      this.deps.chainId,
      BigInt(parsed.height),
      parent.timestampMs,
      parsed.timestampMs,
      parsed.signer,
      this.#now(),
    )
    if (why !== null) throw new Error(why)
    await parsed.block.verify()
    this.#processing.set(parsed.id, { container: block.bytes, block: parsed.block })
  }

  /**
   * Build on the preferred block and sign it. The block is dropped when its time no longer falls in one of my
   * slots; the VM builds nothing when nothing waits.
   */
  async build(): Promise<BuildResult> {
    const { vm } = this.deps
    const block = await vm.buildBlock()
    if (block === undefined) return { kind: 'empty' }
    const parent = await vm.getBlock(block.parentId)
    const parentTs = parent?.timestampMs ?? 0
    const ts = block.timestampMs
    const proposers = this.deps.proposers()
    const mine =
      proposers.length === 0 ||
      checkProposer(proposers, this.deps.chainId, BigInt(block.height), parentTs, ts, this.deps.identity.nodeId, ts) ===
        null
    if (!mine) {
      await block.reject()
      return { kind: 'notMySlot' }
    }
    const signed: SignedBlock =
      proposers.length === 0
        ? { block: block.bytes, certificate: EMPTY, signature: EMPTY }
        : signBlock(this.deps.identity, this.deps.chainId, blockIdBytes(block.id), block.bytes)
    const bytes = encodeSignedBlock(signed)
    this.#processing.set(block.id, { container: bytes, block })
    const { id, parentId, height, timestampMs } = block
    return { kind: 'built', block: { id, parentId, height, timestampMs, bytes } }
  }

  async accept(id: string): Promise<void> {
    const known = this.#processing.get(id)
    const block = known?.block ?? (await this.deps.vm.getBlock(id))
    if (block === undefined) throw new Error(`unknown block ${id}`)
    const sig = known === undefined ? undefined : decodeSignedBlock(known.container)
    const extra: ExtraWrite[] =
      sig === undefined || sig.certificate.length === 0
        ? []
        : [
            {
              sublevel: this.#sigs,
              key: blockIdBytes(id),
              value: encodeSignedBlock({ block: EMPTY, certificate: sig.certificate, signature: sig.signature }),
            },
          ]
    await block.accept(extra)
    this.#processing.delete(id)
    if (this.#processing.size === 0) this.#preferred = id
  }

  async reject(id: string): Promise<void> {
    const known = this.#processing.get(id)
    this.#processing.delete(id)
    const block = known?.block ?? (await this.deps.vm.getBlock(id))
    await block?.reject()
    if (this.#preferred === id) this.#preferred = this.deps.vm.lastAccepted().id
  }

  setPreference(id: string): void {
    this.#preferred = id
    this.deps.vm.setPreference(id)
  }

  /** A processing or accepted block's container (accepted ones with their kept signature), for Get / Ancestors. */
  async container(id: string): Promise<{ bytes: Uint8Array; parentId: string; height: number } | undefined> {
    const known = this.#processing.get(id)
    if (known !== undefined)
      return { bytes: known.container, parentId: known.block.parentId, height: known.block.height }
    const block = await this.#accepted(id)
    if (block === undefined) return undefined
    const kept = plain(await this.#sigs.get(blockIdBytes(id)).catch(() => undefined))
    const sig = kept === undefined ? undefined : decodeSignedBlock(kept)
    const bytes = encodeSignedBlock({
      block: block.bytes,
      certificate: sig?.certificate ?? EMPTY,
      signature: sig?.signature ?? EMPTY,
    })
    return { bytes, parentId: block.parentId, height: block.height }
  }

  /** The accepted block ID at `height`, if any. */
  acceptedIdAt(height: number): Promise<string | undefined> {
    return this.deps.vm.acceptedIdAt(height)
  }

  async isAccepted(id: string): Promise<boolean> {
    return (await this.#accepted(id)) !== undefined
  }

  /** An accepted block by ID: the VM knows it and it is the accepted one at its height. */
  async #accepted(id: string): Promise<VmBlock | undefined> {
    const block = await this.deps.vm.getBlock(id)
    if (block === undefined) return undefined
    return (await this.deps.vm.acceptedIdAt(block.height)) === id ? block : undefined
  }

  /** Bootstrapping: execute and accept a block whose parent is the last accepted block; keeps its signature. */
  async executeAccepted(block: ParsedBlock): Promise<void> {
    const parsed = await this.parse(block.bytes)
    if (parsed === undefined) throw new Error(`unparsable block ${block.id}`)
    await parsed.block.verify()
    this.#processing.set(parsed.id, { container: block.bytes, block: parsed.block })
    await this.accept(parsed.id)
  }
}
