/**
 * The reference's syntactic checks (`UnsignedImportTx.Verify`, `UnsignedExportTx.Verify` and the avax and
 * secp256k1fx `Verify` they call), pure: the first failure's text to the letter, or undefined. Upgrade rules
 * default to all active (every Firn preset activates Granite at genesis).
 */
import { encodeTransferOutputBody } from './codec.js'
import { EMPTY_ID } from './hex.js'
import type { Hex, TransferableOutput, UnsignedAtomicTx, UnsignedExportTx, UnsignedImportTx } from './types.js'

/** What the checks read of the chain (coreth's snow.Context). */
export interface SyntaxContext {
  networkId: number
  /** this chain's ID */
  chainId: Hex
  /** the network's AVAX asset ID */
  avaxAssetId: Hex
  /** the X-chain ID (the only source/destination before AP5) */
  xChainId: Hex
  /** AP5+: whether a chain is another chain of this chain's subnet (`verify.SameSubnet`; this chain is not) */
  sameSubnet(chainId: Hex): boolean
}

/** The upgrades the checks depend on. */
export interface SyntaxRules {
  apricotPhase1: boolean
  apricotPhase2: boolean
  apricotPhase3: boolean
  apricotPhase5: boolean
  banff: boolean
}

export const ALL_ACTIVE: SyntaxRules = {
  apricotPhase1: true,
  apricotPhase2: true,
  apricotPhase3: true,
  apricotPhase5: true,
  banff: true,
}

/** The P-chain ID (the zero ID on every network). */
const P_CHAIN_ID = EMPTY_ID

const same = (a: Hex, b: Hex): boolean => a.toLowerCase() === b.toLowerCase()
const cmpHex = (a: Hex, b: Hex): number => {
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  return x < y ? -1 : x > y ? 1 : 0
}

/** `utils.IsSortedAndUnique`: every element strictly greater than the one before. */
function sortedUnique<T>(items: readonly T[], cmp: (a: T, b: T) => number): boolean {
  for (let i = 1; i < items.length; i++) if (cmp(items[i - 1] as T, items[i] as T) >= 0) return false
  return true
}

/** `sort.IsSorted`: no element less than the one before. */
function sorted<T>(items: readonly T[], cmp: (a: T, b: T) => number): boolean {
  for (let i = items.length - 1; i > 0; i--) if (cmp(items[i] as T, items[i - 1] as T) < 0) return false
  return true
}

function otherChainProblem(ctx: SyntaxContext, rules: SyntaxRules, chain: Hex): string | undefined {
  const ok = rules.apricotPhase5 ? !same(chain, ctx.chainId) && ctx.sameSubnet(chain) : same(chain, ctx.xChainId)
  return ok ? undefined : 'tx has wrong chain ID'
}

function verifyImport(tx: UnsignedImportTx, ctx: SyntaxContext, rules: SyntaxRules): string | undefined {
  if (tx.importedInputs.length === 0) return 'tx has no imported inputs'
  if (tx.networkId !== ctx.networkId) return 'tx was issued with a different network ID'
  if (!same(ctx.chainId, tx.blockchainId)) return 'tx has wrong chain ID'
  if (rules.apricotPhase3 && tx.outputs.length === 0) return 'tx has no EVM outputs'
  const chain = otherChainProblem(ctx, rules, tx.sourceChain)
  if (chain) return chain
  for (const out of tx.outputs) {
    if (out.amount === 0n) return 'EVM Output failed verification: output has no value'
    if (same(out.assetId, EMPTY_ID)) return 'EVM Output failed verification: empty asset ID is not valid'
    if (rules.banff && !same(out.assetId, ctx.avaxAssetId)) return 'import output cannot contain non-AVAX in Banff'
  }
  for (const input of tx.importedInputs) {
    if (same(input.assetId, EMPTY_ID)) return 'atomic input failed verification: empty asset ID is not valid'
    if (input.input.amount === 0n) return 'atomic input failed verification: input has no value'
    if (!sortedUnique(input.input.sigIndices, (a, b) => a - b)) {
      return 'atomic input failed verification: address indices not sorted and unique'
    }
    if (rules.banff && !same(input.assetId, ctx.avaxAssetId)) return 'import input cannot contain non-AVAX in Banff'
  }
  const byUtxo = (a: UnsignedImportTx['importedInputs'][number], b: UnsignedImportTx['importedInputs'][number]) =>
    cmpHex(a.txId, b.txId) || a.outputIndex - b.outputIndex
  if (!sortedUnique(tx.importedInputs, byUtxo)) return 'inputs not sorted and unique'
  const byOwner = (a: { address: Hex; assetId: Hex }, b: { address: Hex; assetId: Hex }) =>
    cmpHex(a.address, b.address) || cmpHex(a.assetId, b.assetId)
  if (rules.apricotPhase2) {
    if (!sortedUnique(tx.outputs, byOwner)) return 'outputs not sorted and unique'
  } else if (rules.apricotPhase1 && !sorted(tx.outputs, byOwner)) {
    return 'tx outputs not sorted'
  }
  return undefined
}

/** secp256k1fx TransferOutput + OutputOwners `Verify`. */
function outputProblem(out: TransferableOutput): string | undefined {
  if (same(out.assetId, EMPTY_ID)) return 'empty asset ID is not valid'
  const o = out.output
  if (o.amount === 0n) return 'output has no value'
  if (o.threshold > o.addresses.length) return 'output is unspendable'
  if (o.threshold === 0 && o.addresses.length > 0) return 'output representation should be optimized'
  if (!sortedUnique(o.addresses, cmpHex)) return 'addresses not sorted and unique'
  return undefined
}

/** Exported outputs sort by asset, then by the codec bytes of their output. */
function compareOutputs(a: TransferableOutput, b: TransferableOutput): number {
  return (
    cmpHex(a.assetId, b.assetId) ||
    Buffer.compare(encodeTransferOutputBody(a.output), encodeTransferOutputBody(b.output))
  )
}

function verifyExport(tx: UnsignedExportTx, ctx: SyntaxContext, rules: SyntaxRules): string | undefined {
  if (tx.exportedOutputs.length === 0) return 'tx has no export outputs'
  if (tx.networkId !== ctx.networkId) return 'tx was issued with a different network ID'
  if (!same(ctx.chainId, tx.blockchainId)) return 'tx has wrong chain ID'
  const chain = otherChainProblem(ctx, rules, tx.destinationChain)
  if (chain) return chain
  for (const input of tx.inputs) {
    if (input.amount === 0n) return 'input has no value'
    if (same(input.assetId, EMPTY_ID)) return 'empty asset ID is not valid'
    if (rules.banff && !same(input.assetId, ctx.avaxAssetId)) return 'export input cannot contain non-AVAX in Banff'
  }
  for (const out of tx.exportedOutputs) {
    const problem = outputProblem(out)
    if (problem) return problem
    const avax = same(out.assetId, ctx.avaxAssetId)
    if (!avax && same(tx.destinationChain, P_CHAIN_ID)) return 'tx has wrong chain ID'
    if (rules.banff && !avax) return 'export output cannot contain non-AVAX in Banff'
  }
  if (!sorted(tx.exportedOutputs, compareOutputs)) return 'tx outputs not sorted'
  const byOwner = (a: { address: Hex; assetId: Hex }, b: { address: Hex; assetId: Hex }) =>
    cmpHex(a.address, b.address) || cmpHex(a.assetId, b.assetId)
  if (rules.apricotPhase1 && !sortedUnique(tx.inputs, byOwner)) return 'inputs not sorted and unique'
  return undefined
}

/** The reference's `Verify(ctx, rules)` of an unsigned atomic tx: its first error text, or undefined. */
export function verifySyntax(
  tx: UnsignedAtomicTx,
  ctx: SyntaxContext,
  rules: SyntaxRules = ALL_ACTIVE,
): string | undefined {
  return tx.type === 'import' ? verifyImport(tx, ctx, rules) : verifyExport(tx, ctx, rules)
}
