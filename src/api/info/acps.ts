/**
 * `info.acps`: support, objection and abstention per ACP, weighted by validator stake. Firn tallies every ACP
 * that this node (when it is a validator) or a connected validator supports or objects to; abstain is the total
 * primary weight minus support minus object. (The reference filters to its CurrentACPs, empty since v1.14.1,
 * and leaves its own votes out; docs/api.md records the difference.)
 */

export interface AcpVoter {
  nodeId: string
  weight: bigint
  supported: readonly number[]
  objected: readonly number[]
}

export interface AcpEntry {
  supportWeight: string
  supporters: string[]
  objectWeight: string
  objectors: string[]
  abstainWeight: string
}

export function tallyAcps(voters: readonly AcpVoter[], totalWeight: bigint): { acps: Record<string, AcpEntry> } {
  const tallies = new Map<number, { support: bigint; object: bigint; supporters: string[]; objectors: string[] }>()
  const entry = (acp: number) => {
    let t = tallies.get(acp)
    if (!t) {
      t = { support: 0n, object: 0n, supporters: [], objectors: [] }
      tallies.set(acp, t)
    }
    return t
  }
  for (const v of voters) {
    if (v.weight <= 0n) continue
    for (const acp of new Set(v.supported)) {
      const t = entry(acp)
      t.support += v.weight
      t.supporters.push(v.nodeId)
    }
    for (const acp of new Set(v.objected)) {
      const t = entry(acp)
      t.object += v.weight
      t.objectors.push(v.nodeId)
    }
  }
  const acps: Record<string, AcpEntry> = {}
  for (const acp of [...tallies.keys()].sort((a, b) => (String(a) < String(b) ? -1 : 1))) {
    const t = tallies.get(acp)!
    acps[String(acp)] = {
      supportWeight: t.support.toString(),
      supporters: t.supporters.sort(),
      objectWeight: t.object.toString(),
      objectors: t.objectors.sort(),
      abstainWeight: (totalWeight - t.support - t.object).toString(),
    }
  }
  return { acps }
}
