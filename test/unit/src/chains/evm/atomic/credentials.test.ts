import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  credentialCountProblem,
  exportCredentialsProblem,
  flowProblem,
  importCredentialsProblem,
} from '../../../../../../src/chains/evm/atomic/credentials.js'
import { shortAddressOfKey, signTx } from '../../../../../../src/chains/evm/atomic/sign.js'
import type { AtomicTx, Utxo } from '../../../../../../src/chains/evm/atomic/types.js'
import { shortIdToString } from '../../../../../../src/identity/ids.js'
import { EWOQ_KEY, exportTx, importTx, LOCAL, txId } from './fixtures.js'

const OTHER_KEY = Uint8Array.from(Buffer.alloc(32, 3))
const EWOQ_SHORT = shortAddressOfKey(EWOQ_KEY)
const cb58Short = (hex: string): string => shortIdToString(Uint8Array.from(Buffer.from(hex.slice(2), 'hex')))

const utxo = (change: (u: Utxo) => void = () => {}): Utxo => {
  const u: Utxo = {
    txId,
    outputIndex: 1,
    assetId: LOCAL.avaxAssetId,
    output: { amount: 5_000_000n, locktime: 0n, threshold: 1, addresses: [EWOQ_SHORT] },
  }
  change(u)
  return u
}

describe('atomic credentials and flow', () => {
  it('checks the flow at a fee', () => {
    assert.equal(flowProblem(importTx(), 1_000_000n, LOCAL.avaxAssetId), undefined)
    assert.equal(
      flowProblem(importTx(), 1_000_001n, LOCAL.avaxAssetId),
      'import tx flow check failed due to: insufficient funds',
    )
    assert.equal(
      flowProblem(exportTx(), 1_000_001n, LOCAL.avaxAssetId),
      'export tx flow check failed due to: insufficient funds',
    )
    assert.equal(
      flowProblem(exportTx(), 0xffffffffffffffffn, LOCAL.avaxAssetId),
      'export tx flow check failed due to: overflow',
    )
  })

  it("checks an import's credentials against its UTXOs with the reference's texts", () => {
    const good = signTx(importTx(), [[EWOQ_KEY]])
    assert.equal(importCredentialsProblem(good, [utxo()], 0n), undefined)
    assert.equal(
      importCredentialsProblem({ ...good, credentials: [] }, [utxo()], 0n),
      'incorrect number of credentials: (1 vs. 0)',
    )
    assert.equal(
      importCredentialsProblem(good, [utxo((u) => (u.assetId = txId))], 0n),
      "asset IDs in the input don't match the utxo",
    )
    const fail = (u: Utxo, tx: AtomicTx = good) => importCredentialsProblem(tx, [u], 100n)
    assert.equal(
      fail(utxo((u) => (u.output.amount = 6n))),
      'import tx transfer failed verification: utxo amount and input amount are not equal: 6 != 5000000',
    )
    assert.equal(
      fail(utxo((u) => (u.output.locktime = 101n))),
      'import tx transfer failed verification: output is time locked',
    )
    assert.equal(
      fail(
        utxo((u) => {
          u.output.threshold = 2
          u.output.addresses = [EWOQ_SHORT, shortAddressOfKey(OTHER_KEY)].sort()
        }),
      ),
      'import tx transfer failed verification: input has less signers than expected',
    )
    assert.equal(
      fail(utxo(), { ...good, credentials: [{ signatures: [] }] }),
      'import tx transfer failed verification: input expected a different number of signers than provided in the credential',
    )
    const byOther = signTx(importTx(), [[OTHER_KEY]])
    assert.equal(
      fail(utxo(), byOther),
      `import tx transfer failed verification: wrong signature: expected signature from 6Y3kysjF9jnHnYkdS9yGAuoHyae2eNmeV but got from ${cb58Short(shortAddressOfKey(OTHER_KEY))}`,
    )
    const highS = structuredClone(good)
    const cred = highS.credentials[0] as { signatures: string[] }
    const sig = Buffer.from((cred.signatures[0] as string).slice(2), 'hex')
    sig[32] = 0xff
    cred.signatures = [`0x${sig.toString('hex')}`]
    assert.equal(
      fail(utxo(), highS),
      'import tx transfer failed verification: signature was mutated from its original format',
    )
  })

  it("checks an export's credentials with the reference's texts", () => {
    const good = signTx(exportTx(), [[EWOQ_KEY]])
    assert.equal(exportCredentialsProblem(good), undefined)
    assert.equal(credentialCountProblem(good), undefined)
    assert.equal(
      credentialCountProblem({ ...good, credentials: [] }),
      'export tx contained incorrect number of credentials want 1 got 0',
    )
    assert.equal(
      exportCredentialsProblem({ ...good, credentials: [] }),
      'export tx contained incorrect number of credentials want 1 got 0',
    )
    assert.equal(
      exportCredentialsProblem(signTx(exportTx(), [[EWOQ_KEY, EWOQ_KEY]])),
      'incorrect number of signatures want 1 signature for EVM Input Credential, but got 2',
    )
    assert.equal(exportCredentialsProblem(signTx(exportTx(), [[OTHER_KEY]])), "signature doesn't match public key")
  })
})
