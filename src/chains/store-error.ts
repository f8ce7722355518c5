/**
 * `ChainStoreError`: a VM found its store missing what it wrote (the last accepted block, its recent ancestors,
 * genesis, the state at the tip). The VM throws it from `initialize`; the node (src/node/chain-host.ts) names the
 * database's directory in the start-up error, which a VM does not know.
 */
export class ChainStoreError extends Error {
  override readonly name = 'ChainStoreError'
}
