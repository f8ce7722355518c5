/**
 * A plain value transfer (an EOA sends value, no data, no access list, to an address without code that is no
 * precompile) applied to the state directly, with the same result as ethereumjs' `runTx`: the sender pays
 * gasUsed x its price and the value and its nonce goes up by one, the recipient gets the value (created when
 * absent), the coinbase gets gasUsed x the tip, and the receipt says success, 21,000 gas (the intrinsic gas: no
 * code runs), no logs. `runTx` does this through its journal, the EVM's message machinery and two checkpoints:
 * ~100 us of the node's main thread per ETH transfer, most of what building a block of them costs
 * (docs/performance.md, "Seventh round").
 *
 * Anything else goes to `runTx`, which then also gives the errors: a tx of another shape, a fee, nonce or balance
 * it would refuse, a sender or recipient with code (EIP-3607, EIP-7702 delegations, contracts), a precompile,
 * accounts that coincide, a coinbase that is absent or left empty (EIP-161 would delete it), any EIP of those
 * below that changes a transfer's gas or effects, a VM or EVM with listeners (tracers watch `runTx`'s events) or
 * in debug mode. A test runs the same blocks both ways and compares state roots, receipts and balances
 * (plain-transfer.test.ts).
 */
import type { EVM } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Account, type Address, equalsBytes, KECCAK256_NULL } from '@ethereumjs/util'
import type { PostByzantiumTxReceipt, VM } from '@ethereumjs/vm'
import { effectiveGasTip, feeCaps } from '../gasprice/tip.js'
import type { AvaStateManager } from '../state/state-manager.js'

/** EIPs that change what a transfer costs, touches or logs in ways this path does not follow */
const NOT_FOLLOWED = [2780, 6800, 7708, 7864, 7928, 8037]
/** EIPs whose rules this path follows */
const FOLLOWED = [1559, 2718, 2930]

export interface PlainTransferResult {
  totalGasSpent: bigint
  receipt: PostByzantiumTxReceipt
  /** a plain transfer creates no contract (as runTx's result says for a call) */
  createdAddress?: undefined
}

interface Quiet {
  DEBUG: boolean
  events: { eventNames(): unknown[] }
}

/** the VM's rules allow this path (decided once per VM: its Common's EIPs do not change within a block) */
export function plainTransfersApply(vm: VM): boolean {
  const common = vm.common
  return (
    common.gteHardfork('spuriousDragon') &&
    FOLLOWED.every((eip) => common.isActivatedEIP(eip)) &&
    !NOT_FOLLOWED.some((eip) => common.isActivatedEIP(eip)) &&
    common.consensusType() !== 'poa'
  )
}

/** nothing watches the run: no listener on the VM's or the EVM's events, neither in debug mode */
function unwatched(vm: VM): boolean {
  const evm = vm.evm as unknown as Quiet
  const own = vm as unknown as Quiet
  return !own.DEBUG && !evm.DEBUG && own.events.eventNames().length === 0 && evm.events.eventNames().length === 0
}

/** the tx's shape: typed 0-2 with a recipient and value, no data, no access list */
function plainShape(tx: TypedTransaction): boolean {
  if (tx.type > 2 || tx.to === undefined || tx.data.length !== 0 || tx.value === 0n) return false
  return !('accessList' in tx) || tx.accessList.length === 0
}

const hasCode = (account: Account): boolean => !equalsBytes(account.codeHash, KECCAK256_NULL)

/**
 * Applies `tx` to `sm` as a plain transfer in a block of base fee `baseFee` paid to `coinbase`, after `gasUsed` gas
 * of the block's earlier txs; undefined (the state untouched) when it is not one `runTx` would run that way.
 */
export async function runPlainTransfer(
  vm: VM,
  sm: AvaStateManager,
  tx: TypedTransaction,
  block: { baseFee: bigint; coinbase: Address; gasUsed: bigint },
): Promise<PlainTransferResult | undefined> {
  if (!plainShape(tx) || !unwatched(vm)) return undefined
  const to = tx.to!
  const caller = tx.getSenderAddress()
  const { baseFee, coinbase } = block
  if (caller.equals(to) || caller.equals(coinbase) || to.equals(coinbase)) return undefined
  if ((vm.evm as EVM).getPrecompile(to) !== undefined) return undefined
  const gasUsed = tx.getIntrinsicGas()
  if (tx.gasLimit < gasUsed) return undefined
  // runTx's inclusion fee is the effective tip (min(tip cap, fee cap - base fee); a legacy price less the base fee)
  const { tip, capTooLow } = effectiveGasTip(tx, baseFee)
  if (capTooLow) return undefined
  const gasPrice = tip + baseFee
  const sender = await sm.getAccount(caller)
  if (sender === undefined || hasCode(sender) || sender.nonce !== tx.nonce) return undefined
  // runTx's balance checks: the value plus the gas at the fee cap (its upfront cost at the block's price is never more)
  if (sender.balance < tx.value + tx.gasLimit * feeCaps(tx).feeCap) return undefined
  const recipient = await sm.getAccount(to)
  if (recipient !== undefined && hasCode(recipient)) return undefined
  const miner = await sm.getAccount(coinbase)
  const minerValue = gasUsed * tip
  if (miner === undefined || (miner.isEmpty() && minerValue === 0n)) return undefined

  sender.nonce += 1n
  sender.balance -= tx.value + gasUsed * gasPrice
  await sm.putAccount(caller, sender)
  const credited = recipient ?? new Account()
  credited.balance += tx.value
  await sm.putAccount(to, credited)
  miner.balance += minerValue
  await sm.putAccount(coinbase, miner)
  return {
    totalGasSpent: gasUsed,
    receipt: { status: 1, cumulativeBlockGasUsed: block.gasUsed + gasUsed, bitvector: new Uint8Array(256), logs: [] },
  }
}
