/**
 * The primary network's validator set as this node sees it. With sybil protection on, the network preset's
 * genesis names the validators and their weights; with it off (always under `--dev`), this node and every
 * connected peer are validators of weight `--sybil-protection-disabled-weight`, as the reference does.
 */

export interface Validator {
  nodeId: string
  weight: bigint
}

/** The reference's local genesis stakers (reference/node-api.md 7.2). */
export const LOCAL_GENESIS_VALIDATORS: readonly string[] = [
  'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
  'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ',
  'NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN',
  'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu',
  'NodeID-P7oB2McjBGgW2NXXWVYjV8JEDFoW9xDE5',
]
/** the local genesis stakes 3e16 nAVAX split evenly over its five stakers */
const LOCAL_GENESIS_WEIGHT = 6_000_000_000_000_000n

export interface ValidatorSetOptions {
  selfNodeId: string
  sybilProtectionEnabled: boolean
  disabledWeight: number
  /** genesis validators, used when sybil protection is on */
  genesis: readonly Validator[]
  /** NodeIDs currently connected (handshake completed) */
  connectedPeers: () => readonly string[]
}

export class ValidatorSet {
  constructor(private readonly opts: ValidatorSetOptions) {}

  weight(nodeId: string): bigint {
    if (!this.opts.sybilProtectionEnabled) {
      const isMember = nodeId === this.opts.selfNodeId || this.opts.connectedPeers().includes(nodeId)
      return isMember ? BigInt(this.opts.disabledWeight) : 0n
    }
    return this.opts.genesis.find((v) => v.nodeId === nodeId)?.weight ?? 0n
  }

  list(): Validator[] {
    if (!this.opts.sybilProtectionEnabled) {
      const w = BigInt(this.opts.disabledWeight)
      return [this.opts.selfNodeId, ...this.opts.connectedPeers()].map((nodeId) => ({ nodeId, weight: w }))
    }
    return [...this.opts.genesis]
  }

  totalWeight(): bigint {
    return this.list().reduce((sum, v) => sum + v.weight, 0n)
  }

  /** true when some validator other than this node exists (a chain then has someone to bootstrap from) */
  hasOtherValidators(): boolean {
    return this.list().some((v) => v.nodeId !== this.opts.selfNodeId && v.weight > 0n)
  }
}

/** The network's genesis validators: a genesis file's initialStakers (NodeConfig.genesis.validators) when it has
 * them, else the preset's (the local network's five stakers; none for other networks). */
export function genesisValidators(
  networkId: number,
  fromGenesisFile?: readonly { nodeId: string; weight: string }[],
): Validator[] {
  if (fromGenesisFile !== undefined) return fromGenesisFile.map((v) => ({ nodeId: v.nodeId, weight: BigInt(v.weight) }))
  if (networkId === 12345) return LOCAL_GENESIS_VALIDATORS.map((nodeId) => ({ nodeId, weight: LOCAL_GENESIS_WEIGHT }))
  return []
}
