import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { UnsignedExportTx, UnsignedImportTx } from '../../../../../../src/chains/evm/atomic/types.js'
import { ALL_ACTIVE, type SyntaxContext, verifySyntax } from '../../../../../../src/chains/evm/atomic/verify.js'
import { exportTx, importTx, LOCAL } from './fixtures.js'

const ctx: SyntaxContext = {
  networkId: LOCAL.networkId,
  chainId: LOCAL.cChainId,
  avaxAssetId: LOCAL.avaxAssetId,
  xChainId: LOCAL.xChainId,
  sameSubnet: (id) => id === LOCAL.xChainId || id === LOCAL.pChainId,
}

const other = `0x${'11'.repeat(32)}`
const zero = `0x${'00'.repeat(32)}`

function imp(change: (tx: UnsignedImportTx) => void): string | undefined {
  const tx = importTx()
  change(tx)
  return verifySyntax(tx, ctx)
}

function exp(change: (tx: UnsignedExportTx) => void): string | undefined {
  const tx = exportTx()
  change(tx)
  return verifySyntax(tx, ctx)
}

describe('verifySyntax', () => {
  it('accepts well-formed import and export txs', () => {
    assert.equal(verifySyntax(importTx(), ctx), undefined)
    assert.equal(verifySyntax(exportTx(), ctx), undefined)
  })

  it("gives an import's errors in the reference's order and texts", () => {
    assert.equal(
      imp((t) => (t.importedInputs = [])),
      'tx has no imported inputs',
    )
    assert.equal(
      imp((t) => (t.networkId = 1)),
      'tx was issued with a different network ID',
    )
    assert.equal(
      imp((t) => (t.blockchainId = other)),
      'tx has wrong chain ID',
    )
    assert.equal(
      imp((t) => (t.outputs = [])),
      'tx has no EVM outputs',
    )
    assert.equal(
      imp((t) => (t.sourceChain = LOCAL.cChainId)),
      'tx has wrong chain ID',
    )
    assert.equal(
      imp((t) => (t.sourceChain = other)),
      'tx has wrong chain ID',
    )
    assert.equal(
      imp((t) => (t.sourceChain = LOCAL.pChainId)),
      undefined,
    )
    const out = (t: UnsignedImportTx) => t.outputs[0] as UnsignedImportTx['outputs'][number]
    const input = (t: UnsignedImportTx) => t.importedInputs[0] as UnsignedImportTx['importedInputs'][number]
    assert.equal(
      imp((t) => (out(t).amount = 0n)),
      'EVM Output failed verification: output has no value',
    )
    assert.equal(
      imp((t) => (out(t).assetId = zero)),
      'EVM Output failed verification: empty asset ID is not valid',
    )
    assert.equal(
      imp((t) => (out(t).assetId = other)),
      'import output cannot contain non-AVAX in Banff',
    )
    assert.equal(
      imp((t) => (input(t).assetId = zero)),
      'atomic input failed verification: empty asset ID is not valid',
    )
    assert.equal(
      imp((t) => (input(t).input.amount = 0n)),
      'atomic input failed verification: input has no value',
    )
    assert.equal(
      imp((t) => (input(t).input.sigIndices = [1, 1])),
      'atomic input failed verification: address indices not sorted and unique',
    )
    assert.equal(
      imp((t) => (input(t).assetId = other)),
      'import input cannot contain non-AVAX in Banff',
    )
    assert.equal(
      imp((t) => t.importedInputs.push({ ...input(t) })),
      'inputs not sorted and unique',
    )
    assert.equal(
      imp((t) => t.importedInputs.push({ ...input(t), outputIndex: 0 })),
      'inputs not sorted and unique',
    )
    assert.equal(
      imp((t) => t.importedInputs.push({ ...input(t), outputIndex: 2 })),
      undefined,
    )
    assert.equal(
      imp((t) => t.outputs.push({ ...out(t) })),
      'outputs not sorted and unique',
    )
    const ap1 = { ...ALL_ACTIVE, apricotPhase2: false }
    const dup = importTx()
    dup.outputs.push({ ...(dup.outputs[0] as UnsignedImportTx['outputs'][number]) })
    assert.equal(verifySyntax(dup, ctx, ap1), undefined)
    dup.outputs.unshift({ ...(dup.outputs[0] as UnsignedImportTx['outputs'][number]), address: `0x${'ff'.repeat(20)}` })
    assert.equal(verifySyntax(dup, ctx, ap1), 'tx outputs not sorted')
  })

  it("gives an export's errors in the reference's order and texts", () => {
    type Out = UnsignedExportTx['exportedOutputs'][number]
    const out = (t: UnsignedExportTx) => t.exportedOutputs[0] as Out
    const input = (t: UnsignedExportTx) => t.inputs[0] as UnsignedExportTx['inputs'][number]
    assert.equal(
      exp((t) => (t.exportedOutputs = [])),
      'tx has no export outputs',
    )
    assert.equal(
      exp((t) => (t.networkId = 5)),
      'tx was issued with a different network ID',
    )
    assert.equal(
      exp((t) => (t.blockchainId = LOCAL.xChainId)),
      'tx has wrong chain ID',
    )
    assert.equal(
      exp((t) => (t.destinationChain = LOCAL.cChainId)),
      'tx has wrong chain ID',
    )
    assert.equal(
      exp((t) => (input(t).amount = 0n)),
      'input has no value',
    )
    assert.equal(
      exp((t) => (input(t).assetId = zero)),
      'empty asset ID is not valid',
    )
    assert.equal(
      exp((t) => (input(t).assetId = other)),
      'export input cannot contain non-AVAX in Banff',
    )
    assert.equal(
      exp((t) => (out(t).assetId = zero)),
      'empty asset ID is not valid',
    )
    assert.equal(
      exp((t) => (out(t).output.amount = 0n)),
      'output has no value',
    )
    assert.equal(
      exp((t) => (out(t).output.threshold = 2)),
      'output is unspendable',
    )
    assert.equal(
      exp((t) => {
        out(t).output.threshold = 0
      }),
      'output representation should be optimized',
    )
    assert.equal(
      exp((t) => {
        out(t).output.addresses.push(out(t).output.addresses[0] as string)
      }),
      'addresses not sorted and unique',
    )
    assert.equal(
      exp((t) => (out(t).assetId = other)),
      'export output cannot contain non-AVAX in Banff',
    )
    assert.equal(
      verifySyntax(
        (() => {
          const t = exportTx()
          t.destinationChain = LOCAL.pChainId
          out(t).assetId = other
          return t
        })(),
        ctx,
        { ...ALL_ACTIVE, banff: false },
      ),
      'tx has wrong chain ID',
    )
    // outputs sort by asset, then by the output's bytes (amount first); equal outputs are allowed
    assert.equal(
      exp((t) => t.exportedOutputs.push({ ...out(t), output: { ...out(t).output, amount: 1n } })),
      'tx outputs not sorted',
    )
    assert.equal(
      exp((t) => t.exportedOutputs.push({ ...out(t), output: { ...out(t).output, amount: 5_000_000n } })),
      undefined,
    )
    assert.equal(
      exp((t) => t.exportedOutputs.push({ ...out(t) })),
      undefined,
    )
    assert.equal(
      exp((t) => t.inputs.push({ ...input(t), nonce: 4n })),
      'inputs not sorted and unique',
    )
  })
})
