/**
 * The shapes the consensus engine, the bootstrapper, the protocols and the chain glue share. Block IDs are
 * lowercase 0x-prefixed hex strings (the EVM block hash for the C chain); NodeIDs are `NodeID-...` strings.
 * Pure types: no IO here.
 */

/**
 * A parsed (not yet verified) block as the engine sees it: its place in the chain, never its bytes (the IO layer
 * parses containers before they reach the engine and keeps the bytes by block ID).
 */
export interface EngineBlock {
  id: string
  parentId: string
  height: number
  /** proposer timestamp, unix ms */
  timestampMs: number
}

/** A parsed container: the block and its bytes as they travel on the wire (for the C chain: the signed envelope). */
export interface ParsedBlock extends EngineBlock {
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

/** A validator's stake as JSON-safe data (actor context, events): the weight as a decimal string. */
export interface ValidatorStake {
  nodeId: string
  weight: string
}

/** The last accepted block. */
export interface AcceptedRef {
  id: string
  height: number
}
