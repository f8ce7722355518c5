/**
 * What the simulated messages weigh on the wire: each one is encoded as the node sends it, with Firn's own codecs:
 * the consensus protocol's envelope (protocols/consensus/service.ts `consensusSpec`: request ID, deadline, and the
 * PushQuery / PullQuery / Get request or the Chits / Put response, protocols/consensus/consensus.ts) framed with its
 * varint length (protocols/codec/frame.ts), IDs as 32 bytes (src/network/chain-wire.ts). Not counted: the libp2p
 * layers under the frame (yamux stream headers, noise encryption, TCP/IP).
 */
import { createHash } from 'node:crypto'
import type { Chits } from '../../actors/consensus/types.js'
import { encodeFrame } from '../../protocols/codec/frame.js'
import type { ConsensusRequest, ConsensusResponse, Chits as WireChits } from '../../protocols/consensus/service.js'
import { consensusSpec } from '../../protocols/consensus/service.js'
import { blockIdBytes } from '../../src/network/chain-wire.js'

export const WIRE_KINDS = ['pushQuery', 'pullQuery', 'chits', 'get', 'put'] as const
export type WireKind = (typeof WIRE_KINDS)[number]

/** Simulated time 0 as unix ms, for the envelopes' deadlines (2026-01-01T00:00:00Z: a present-day varint length). */
export const WIRE_EPOCH_MS = Date.UTC(2026, 0, 1)

const sha256 = (text: string): Uint8Array => new Uint8Array(createHash('sha256').update(text).digest())

export interface WireOptions {
  /** the container every PushQuery and Put carries: a block's bytes as they travel */
  container: Uint8Array
  /** the requester's timeout: deadline = now + timeout */
  timeoutMs: number
}

/** Encodes simulated messages into frames and returns their lengths. */
export class WireEncoder {
  readonly #chainId = sha256('firn-sim/chain')
  readonly #ids = new Map<string, Uint8Array>()

  constructor(private readonly o: WireOptions) {}

  /** a simulated block ID (any string) as the 32 bytes of the 0x-hex ID the node uses (sha256 of the name) */
  idBytes(id: string): Uint8Array {
    let bytes = this.#ids.get(id)
    if (bytes === undefined) {
      bytes = blockIdBytes(`0x${Buffer.from(sha256(`block/${id}`)).toString('hex')}`)
      this.#ids.set(id, bytes)
    }
    return bytes
  }

  #request(request: ConsensusRequest, requestId: number, nowMs: number): number {
    const deadline = BigInt(WIRE_EPOCH_MS + nowMs + this.o.timeoutMs)
    return encodeFrame(consensusSpec.codec, consensusSpec.wrapRequest(request, requestId, deadline)).byteLength
  }

  #response(response: ConsensusResponse, requestId: number): number {
    return encodeFrame(consensusSpec.codec, consensusSpec.wrapResponse(response, requestId)).byteLength
  }

  pushQuery(requestId: number, nowMs: number, requestedHeight: number): number {
    const pushQuery = { chainId: this.#chainId, container: this.o.container, requestedHeight }
    return this.#request({ pushQuery }, requestId, nowMs)
  }

  pullQuery(requestId: number, nowMs: number, blockId: string, requestedHeight: number): number {
    const pullQuery = { chainId: this.#chainId, containerId: this.idBytes(blockId), requestedHeight }
    return this.#request({ pullQuery }, requestId, nowMs)
  }

  get(requestId: number, nowMs: number, blockId: string): number {
    return this.#request({ get: { chainId: this.#chainId, containerId: this.idBytes(blockId) } }, requestId, nowMs)
  }

  chits(requestId: number, chits: Chits): number {
    const wire: WireChits = {
      chainId: this.#chainId,
      preferredId: this.idBytes(chits.preferredId),
      preferredIdAtHeight: this.idBytes(chits.preferredIdAtHeight),
      acceptedId: this.idBytes(chits.acceptedId),
      acceptedHeight: chits.acceptedHeight,
    }
    return this.#response({ chits: wire }, requestId)
  }

  put(requestId: number): number {
    return this.#response({ put: { chainId: this.#chainId, container: this.o.container } }, requestId)
  }
}

/** Messages and bytes one node sent, by kind. */
export interface Traffic {
  messages: Record<WireKind, number>
  bytes: Record<WireKind, number>
}

export const newTraffic = (): Traffic => ({
  messages: { pushQuery: 0, pullQuery: 0, chits: 0, get: 0, put: 0 },
  bytes: { pushQuery: 0, pullQuery: 0, chits: 0, get: 0, put: 0 },
})

export const totalOf = (r: Record<WireKind, number>): number => WIRE_KINDS.reduce((n, k) => n + r[k], 0)
