/**
 * An atomic tx against the chain (../shared/reference/cchain.md 2.6): the reference's semantic verification in its
 * order (syntax, the flow check at the base fee, the credential count, the import's UTXOs from shared memory,
 * the credentials, the inputs spent by processing ancestors) and its EVM state transfer (an import credits
 * amount x 1e9 wei per output; an export debits its inputs at their nonces and bumps each nonce once). Texts are
 * the reference's.
 */
import { Account, Address } from '@ethereumjs/util'
import type { ChainSharedMemory } from '../../shared-memory/shared-memory.js'
import { decodeUtxo } from './codec.js'
import {
  credentialCountProblem,
  exportCredentialsProblem,
  flowProblem,
  importCredentialsProblem,
} from './credentials.js'
import { dynamicFee, gasUsed, X2C_RATE } from './fees.js'
import { fromHex } from './hex.js'
import { type DecodedTx, idCb58, inputIdsOf, utxoIdOf } from './ids.js'
import type { Hex, Utxo } from './types.js'
import { type SyntaxContext, verifySyntax } from './verify.js'

/** What verification reads besides the tx. */
export interface AtomicVerifyEnv {
  ctx: SyntaxContext
  /** the base fee (wei) the fee is checked at: the including block's, or the estimate of the next one */
  baseFee: bigint
  /** the chain's clock (unix seconds), for locktimes */
  nowUnix: bigint
  memory: ChainSharedMemory
  /** whether an atomic tx of a processing ancestor (or of this block, before this tx) spends the input ID */
  spent(inputId: Hex): boolean
  /**
   * false while the chain bootstraps: accepted blocks are re-executed without reading the import's UTXOs (the
   * source chain may not have accepted its export yet; shared memory keeps a removal marker), as the reference
   * does
   */
  bootstrapped: boolean
}

/** The state an atomic tx changes: the run's state manager, or a view for the mempool's check. */
export interface AtomicState {
  getAccount(address: Address): Promise<Account | undefined>
  putAccount(address: Address, account: Account | undefined): Promise<void>
}

/** The first problem of `d` (the reference's text), or undefined. */
export async function verifyAtomicTx(d: DecodedTx, env: AtomicVerifyEnv): Promise<string | undefined> {
  const u = d.tx.unsigned
  const syntax = verifySyntax(u, env.ctx)
  if (syntax !== undefined) return syntax
  const gas = gasUsed(u, true, d.unsignedBytes.length)
  const flow = flowProblem(u, dynamicFee(gas, env.baseFee), env.ctx.avaxAssetId)
  if (flow !== undefined) return flow
  const count = credentialCountProblem(d.tx)
  if (count !== undefined) return count
  if (!env.bootstrapped) return undefined
  if (u.type === 'import') {
    let utxos: Utxo[]
    try {
      const keys = u.importedInputs.map((i) => fromHex(utxoIdOf(i.txId, i.outputIndex), 32, 'UTXO ID'))
      utxos = (await env.memory.get(fromHex(u.sourceChain, 32, 'chain ID'), keys)).map(decodeUtxo)
    } catch (err) {
      return `failed to fetch import UTXOs from ${idCb58(u.sourceChain)} due to: ${(err as Error).message}`
    }
    const creds = importCredentialsProblem(d.tx, utxos, env.nowUnix)
    if (creds !== undefined) return creds
  } else {
    const creds = exportCredentialsProblem(d.tx)
    if (creds !== undefined) return creds
  }
  if (inputIdsOf(u).some((id) => env.spent(id))) return 'invalid block due to conflicting atomic inputs'
  return undefined
}

/**
 * The EVM side of an atomic tx (`EVMStateTransfer`): nothing changes unless every input holds its amount at its
 * nonce (`insufficient funds`, `invalid nonce`).
 */
export async function transferAtomic(d: DecodedTx, avaxAssetId: Hex, state: AtomicState): Promise<string | undefined> {
  const u = d.tx.unsigned
  const avax = (asset: Hex) => asset.toLowerCase() === avaxAssetId.toLowerCase()
  if (u.type === 'import') {
    for (const out of u.outputs) {
      if (!avax(out.assetId)) continue
      const address = new Address(fromHex(out.address, 20, 'address'))
      const account = (await state.getAccount(address)) ?? new Account()
      account.balance += out.amount * X2C_RATE
      await state.putAccount(address, account)
    }
    return undefined
  }
  const debits: { address: Address; account: Account; amount: bigint }[] = []
  for (const input of u.inputs) {
    const address = new Address(fromHex(input.address, 20, 'address'))
    const account = (await state.getAccount(address)) ?? new Account()
    const amount = avax(input.assetId) ? input.amount * X2C_RATE : 0n
    if (account.balance < amount) return 'insufficient funds'
    if (account.nonce !== input.nonce) return 'invalid nonce'
    debits.push({ address, account, amount })
  }
  for (const { address, account, amount } of debits) {
    account.balance -= amount
    account.nonce += 1n
    await state.putAccount(address, account)
  }
  return undefined
}
