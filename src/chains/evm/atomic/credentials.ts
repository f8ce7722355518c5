/**
 * The pure parts of the reference's semantic verification (coreth's semanticVerifier, secp256k1fx's
 * VerifyTransfer, avax's FlowChecker), with its texts: the flow check at a given fee, an import's credentials
 * against the UTXOs it spends, an export's credentials against its EVM inputs. What needs state (shared memory,
 * balances, nonces, processing ancestors) is the caller's. The reference's order: verifySyntax, flowProblem at
 * the fee, credentialCountProblem, (import) read the UTXOs, importCredentialsProblem / exportCredentialsProblem.
 */
import { shortIdToString } from '../../../identity/ids.js'
import { encodeUnsignedTx } from './codec.js'
import { AtomicError } from './errors.js'
import { fromHex } from './hex.js'
import { recoverEvmAddress, recoverShortAddress, signingHash } from './sign.js'
import type { AtomicTx, Hex, TransferOutput, UnsignedAtomicTx, Utxo } from './types.js'

const MAX_U64 = 0xffffffffffffffffn
const same = (a: Hex, b: Hex): boolean => a.toLowerCase() === b.toLowerCase()
const short = (a: Hex): string => shortIdToString(fromHex(a, 20, 'address'))

/** `FlowChecker`: the fee (nAVAX, in AVAX) and the outputs produced against the inputs consumed, per asset. */
export function flowProblem(tx: UnsignedAtomicTx, feeNAvax: bigint, avaxAssetId: Hex): string | undefined {
  const produced = new Map<string, bigint>()
  const consumed = new Map<string, bigint>()
  let overflow = false
  const add = (m: Map<string, bigint>, asset: Hex, amount: bigint) => {
    const key = asset.toLowerCase()
    const sum = (m.get(key) ?? 0n) + amount
    if (sum > MAX_U64) overflow = true
    m.set(key, sum)
  }
  add(produced, avaxAssetId, feeNAvax)
  if (tx.type === 'import') {
    for (const out of tx.outputs) add(produced, out.assetId, out.amount)
    for (const i of tx.importedInputs) add(consumed, i.assetId, i.input.amount)
  } else {
    for (const out of tx.exportedOutputs) add(produced, out.assetId, out.output.amount)
    for (const i of tx.inputs) add(consumed, i.assetId, i.amount)
  }
  let problem: string | undefined
  if (overflow) problem = 'overflow'
  else if ([...produced].some(([asset, amount]) => amount > (consumed.get(asset) ?? 0n))) problem = 'insufficient funds'
  return problem && `${tx.type} tx flow check failed due to: ${problem}`
}

/** secp256k1fx TransferOutput `Verify`. */
function utxoOutputProblem(o: TransferOutput): string | undefined {
  if (o.amount === 0n) return 'output has no value'
  if (o.threshold > o.addresses.length) return 'output is unspendable'
  if (o.threshold === 0 && o.addresses.length > 0) return 'output representation should be optimized'
  for (let i = 1; i < o.addresses.length; i++) {
    if ((o.addresses[i - 1] as Hex).toLowerCase() >= (o.addresses[i] as Hex).toLowerCase()) {
      return 'addresses not sorted and unique'
    }
  }
  return undefined
}

const signatureText = (fn: () => Hex): Hex | { error: string } => {
  try {
    return fn()
  } catch (err) {
    if (err instanceof AtomicError) return { error: err.message }
    throw err
  }
}

/**
 * The credential count: one per import input (`incorrect number of credentials: (inputs vs. creds)`), one per
 * export input. The reference checks it after the flow check and, for an import, before reading shared memory.
 */
export function credentialCountProblem(tx: AtomicTx): string | undefined {
  const u = tx.unsigned
  const n = tx.credentials.length
  if (u.type === 'import') {
    return n === u.importedInputs.length
      ? undefined
      : `incorrect number of credentials: (${u.importedInputs.length} vs. ${n})`
  }
  return n === u.inputs.length
    ? undefined
    : `export tx contained incorrect number of credentials want ${u.inputs.length} got ${n}`
}

/**
 * An import's credentials against the UTXOs it spends (`utxos[i]` for input i, as read from shared memory):
 * counts, assets, then secp256k1fx's VerifyTransfer wrapped as `import tx transfer failed verification: ...`.
 * `nowUnix` is the chain's clock for locktimes.
 */
export function importCredentialsProblem(tx: AtomicTx, utxos: readonly Utxo[], nowUnix: bigint): string | undefined {
  const u = tx.unsigned
  if (u.type !== 'import') return undefined
  const count = credentialCountProblem(tx)
  if (count) return count
  const hash = signingHash(encodeUnsignedTx(u))
  for (const [i, input] of u.importedInputs.entries()) {
    const utxo = utxos[i] as Utxo
    const cred = tx.credentials[i] as AtomicTx['credentials'][number]
    if (!same(utxo.assetId, input.assetId)) return "asset IDs in the input don't match the utxo"
    const fail = (text: string) => `import tx transfer failed verification: ${text}`
    const outProblem = utxoOutputProblem(utxo.output)
    if (outProblem) return fail(outProblem)
    if (input.input.amount === 0n) return fail('input has no value')
    const idx = input.input.sigIndices
    for (let k = 1; k < idx.length; k++) {
      if ((idx[k - 1] as number) >= (idx[k] as number)) return fail('address indices not sorted and unique')
    }
    if (utxo.output.amount !== input.input.amount) {
      return fail(`utxo amount and input amount are not equal: ${utxo.output.amount} != ${input.input.amount}`)
    }
    if (utxo.output.locktime > nowUnix) return fail('output is time locked')
    if (utxo.output.threshold < idx.length) return fail('input has more signers than expected')
    if (utxo.output.threshold > idx.length) return fail('input has less signers than expected')
    if (idx.length !== cred.signatures.length) {
      return fail('input expected a different number of signers than provided in the credential')
    }
    for (const [k, index] of idx.entries()) {
      const expected = utxo.output.addresses[index]
      if (expected === undefined) return fail('input referenced a nonexistent address in the output')
      const got = signatureText(() => recoverShortAddress(hash, cred.signatures[k] as Hex))
      if (typeof got !== 'string') return fail(got.error)
      if (!same(got, expected)) {
        return fail(`wrong signature: expected signature from ${short(expected)} but got from ${short(got)}`)
      }
    }
  }
  return undefined
}

/** An export's credentials: one per EVM input, each exactly one signature by the input's EVM address. */
export function exportCredentialsProblem(tx: AtomicTx): string | undefined {
  const u = tx.unsigned
  if (u.type !== 'export') return undefined
  const count = credentialCountProblem(tx)
  if (count) return count
  const hash = signingHash(encodeUnsignedTx(u))
  for (const [i, input] of u.inputs.entries()) {
    const sigs = (tx.credentials[i] as AtomicTx['credentials'][number]).signatures
    if (sigs.length !== 1) {
      return `incorrect number of signatures want 1 signature for EVM Input Credential, but got ${sigs.length}`
    }
    const got = signatureText(() => recoverEvmAddress(hash, sigs[0] as Hex))
    if (typeof got !== 'string') return got.error
    if (!same(got, input.address)) return "signature doesn't match public key"
  }
  return undefined
}
