/**
 * The shapes the consensus engine, the bootstrapper, the protocols and the chain glue share. Block IDs are
 * lowercase 0x-prefixed hex strings (the EVM block hash for the C chain); NodeIDs are `NodeID-...` strings.
 * Pure types: no IO here.
 */

/** A parsed (not yet verified) block as consensus sees it. */
export interface EngineBlock {
  id: string
  parentId: string
  height: number
  /** proposer timestamp, unix ms */
  timestampMs: number
  /** the container as it travels on the wire (for the C chain: the signed envelope) */
  bytes: Uint8Array
}

/** The answer to a push or pull query (reference consensus.md 1.5). */
export interface Chits {
  preferredId: string
  preferredIdAtHeight: string
  acceptedId: string
  acceptedHeight: number
}

export interface Weighted {
  nodeId: string
  weight: bigint
}

/** The last accepted block. */
export interface AcceptedRef {
  id: string
  height: number
}
