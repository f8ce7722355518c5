/**
 * The reference's checks of a custom network's genesis (genesis/genesis.go validateConfig, in its order and with
 * its texts), and the genesis validators' weights as the reference stakes them (FromConfig + splitAllocations).
 */
import { bech32 } from '@scure/base'
import { networkHrp } from '../../config/networks.js'
import { fieldFail } from './json-node.js'
import type { AvaxAddress, NetworkGenesisConfig } from './network.js'

/** The reference's default `--max-stake-duration` (genesis.LocalParams: 365 days), seconds; Firn has no such flag. */
export const MAX_STAKE_DURATION_SEC = 365n * 24n * 3600n
const MAX_UINT64 = (1n << 64n) - 1n

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')

/** `X-<hrp>1...` as the reference formats an address in its errors. */
function formatX(addr: AvaxAddress, networkId: number): string {
  return `X-${bech32.encode(networkHrp(networkId), bech32.toWords(addr.bytes), false)}`
}

function initialSupply(g: NetworkGenesisConfig): bigint {
  let supply = 0n
  for (const a of g.allocations) {
    supply += a.initialAmount
    for (const u of a.unlockSchedule) supply += u.amount
    if (supply > MAX_UINT64) fieldFail('allocations', 'unable to calculate initial supply: overflow')
  }
  return supply
}

/** validateConfig: throws a GenesisFieldError naming the field, with the reference's text. */
export function validateNetworkGenesis(g: NetworkGenesisConfig, networkId: number, nowSec: number): void {
  if (g.networkId !== networkId) {
    fieldFail('networkID', `conflicting networkIDs: expected ${networkId} but config contains ${g.networkId}`)
  }
  if (initialSupply(g) === 0n) fieldFail('allocations', 'initial supply must be > 0')
  if (g.startTime > BigInt(Math.floor(nowSec))) {
    fieldFail('startTime', `startTime cannot be in the future: ${new Date(Number(g.startTime) * 1000).toISOString()}`)
  }
  if (g.initialStakeDuration === 0n) fieldFail('initialStakeDuration', 'initial stake duration must be > 0')
  if (g.initialStakeDuration > MAX_STAKE_DURATION_SEC) {
    fieldFail('initialStakeDuration', 'initial stake duration larger than maximum configured')
  }
  if (g.initialStakers.length === 0) fieldFail('initialStakers', 'initial stakers must be > 0')
  const offsetRequired = g.initialStakeDurationOffset * BigInt(g.initialStakers.length - 1)
  if (offsetRequired > g.initialStakeDuration) {
    fieldFail('initialStakeDuration', `initial stake duration is too low must be at least ${offsetRequired}`)
  }
  validateStakedFunds(g, networkId)
  let locked = 0n
  for (const a of g.allocations) for (const u of a.unlockSchedule) locked += u.amount
  if (locked < BigInt(g.initialStakers.length)) {
    fieldFail(
      'allocations',
      `total allocations locked amount is too low: ${locked} locked < ${g.initialStakers.length} stakers`,
    )
  }
  if (g.cChainGenesis.length === 0) fieldFail('cChainGenesis', 'C-Chain genesis cannot be empty')
}

function validateStakedFunds(g: NetworkGenesisConfig, networkId: number): void {
  const prefix = 'initial staked funds validation failed'
  if (g.initialStakedFunds.length === 0)
    fieldFail('initialStakedFunds', `${prefix}: initial staked funds cannot be empty`)
  const allocated = new Set(g.allocations.map((a) => hex(a.avaxAddr.bytes)))
  const seen = new Set<string>()
  g.initialStakedFunds.forEach((addr, i) => {
    const key = hex(addr.bytes)
    const path = `initialStakedFunds[${i}]`
    if (seen.has(key)) fieldFail(path, `${prefix}: duplicate initially staked address: ${formatX(addr, networkId)}`)
    seen.add(key)
    if (!allocated.has(key)) fieldFail(path, `${prefix}: no allocation to stake in address ${formatX(addr, networkId)}`)
  })
}

/**
 * The genesis validators and their stake, as the reference's FromConfig builds them: the unlock-schedule amounts
 * of the allocations whose address is initially staked, in file order, split over the stakers so each but the last
 * gets floor(total / stakers) and the last the rest. Weights are decimal strings (nAVAX).
 */
export function genesisStakerWeights(g: NetworkGenesisConfig): { nodeId: string; weight: string }[] {
  const staked = new Set(g.initialStakedFunds.map((a) => hex(a.bytes)))
  const amounts = g.allocations
    .filter((a) => staked.has(hex(a.avaxAddr.bytes)))
    .flatMap((a) => a.unlockSchedule.map((u) => u.amount))
  const n = g.initialStakers.length
  const total = amounts.reduce((s, a) => s + a, 0n)
  const nodeWeight = total / BigInt(n)
  const weights: bigint[] = []
  let current = 0n
  for (let amount of amounts) {
    while (current + amount > nodeWeight && weights.length < n - 1) {
      amount -= nodeWeight - current
      weights.push(nodeWeight)
      current = 0n
    }
    current += amount
  }
  weights.push(current)
  while (weights.length < n) weights.push(0n)
  return g.initialStakers.map((s, i) => ({ nodeId: s.nodeId, weight: String(weights[i]) }))
}
