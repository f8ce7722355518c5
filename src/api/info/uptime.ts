/**
 * `info.uptime`: this node's uptime as the network reports it (reference network.go NodeUptime). The node
 * counts itself as 100 % up; every connected validator adds its observed uptime times its weight; both
 * results divide by the TOTAL primary weight, so disconnected validators count as 0.
 */
import { FirnError } from '../../runtime/errors.js'

export interface UptimeInput {
  selfWeight: bigint
  totalWeight: bigint
  /** fraction in [0, 1] */
  requirement: number
  /** connected validators: weight and the uptime (0-100) they observe for this node */
  peers: { weight: bigint; observedUptime: number }[]
}

export interface UptimeResult {
  rewardingStakePercentage: string
  weightedAveragePercentage: string
}

export function computeUptime(input: UptimeInput): UptimeResult {
  if (input.selfWeight === 0n) throw new FirnError("couldn't get node uptime: node is not a validator")
  let weighted = 100 * Number(input.selfWeight)
  let rewarding = Number(input.selfWeight)
  for (const p of input.peers) {
    if (p.weight <= 0n) continue
    weighted += p.observedUptime * Number(p.weight)
    if (p.observedUptime / 100 >= input.requirement) rewarding += Number(p.weight)
  }
  const total = Number(input.totalWeight)
  return {
    rewardingStakePercentage: Math.abs((100 * rewarding) / total).toFixed(4),
    weightedAveragePercentage: Math.abs(weighted / total).toFixed(4),
  }
}
