/**
 * The reference's uptime accounting (snow/uptime/manager.go) as a pure reducer. Persisted per validator:
 * `upDurationMs`, `lastUpdatedMs`, `startTimeMs`; in memory: when each node connected. The own node is always
 * connected. While not tracking (before the P-chain's normal operation, after shutdown) time is credited as up,
 * so our own downtime does not count against anyone. Each step reports which records it wrote, for src/ to
 * persist. Also `info.uptime`'s stake-weighted view of our uptime (`weightedUptime`). Times in ms.
 */

export interface UptimeRecord {
  upDurationMs: number
  lastUpdatedMs: number
  /** the validator's staking start */
  startTimeMs: number
}

export interface UptimeState {
  selfNodeId: string
  tracking: boolean
  /** the persisted part, by NodeID */
  records: Record<string, UptimeRecord>
  /** in memory only: when each connected node connected */
  connectedAt: Record<string, number>
}

export type UptimeEvent =
  | { type: 'connect'; nodeId: string; now: number }
  | { type: 'disconnect'; nodeId: string; now: number }
  | { type: 'startTracking'; now: number }
  | { type: 'stopTracking'; now: number }
  /** a new validator: nothing up yet, counted from its start */
  | { type: 'addValidator'; nodeId: string; startTimeMs: number }
  | { type: 'removeValidator'; nodeId: string }

export interface UptimeResult {
  state: UptimeState
  /** NodeIDs whose record was written (removed ones included): persist `state.records[id]` or delete it */
  persisted: string[]
}

export interface UptimeInit {
  selfNodeId: string
  nowMs: number
  records?: Record<string, UptimeRecord>
}

/** A node not tracking yet; the own node connected since `nowMs`. */
export const uptimeCreate = (init: UptimeInit): UptimeState => ({
  selfNodeId: init.selfNodeId,
  tracking: false,
  records: { ...(init.records ?? {}) },
  connectedAt: { [init.selfNodeId]: init.nowMs },
})

export const isConnected = (s: UptimeState, nodeId: string): boolean =>
  nodeId === s.selfNodeId || s.connectedAt[nodeId] !== undefined

/** `calc(n)`: the node's up duration and the time it is good to; null for a node that is not a validator. */
export function calcUptime(
  s: UptimeState,
  nodeId: string,
  now: number,
): { upDurationMs: number; lastUpdatedMs: number } | null {
  const r = s.records[nodeId]
  if (r === undefined) return null
  const up = r.upDurationMs
  const last = r.lastUpdatedMs
  if (now < last) return { upDurationMs: up, lastUpdatedMs: last }
  if (!s.tracking) return { upDurationMs: up + now - last, lastUpdatedMs: now }
  const connectedAt = s.connectedAt[nodeId] ?? (nodeId === s.selfNodeId ? last : undefined)
  if (connectedAt === undefined) return { upDurationMs: up, lastUpdatedMs: now }
  return { upDurationMs: up + now - Math.max(connectedAt, last), lastUpdatedMs: now }
}

/** Fraction of the validation period the node was up, in [0, 1]; 1 for an empty period; null if unknown. */
export function uptimePercent(s: UptimeState, nodeId: string, now: number): number | null {
  const r = s.records[nodeId]
  const c = calcUptime(s, nodeId, now)
  if (r === undefined || c === null) return null
  const span = c.lastUpdatedMs - r.startTimeMs
  if (span === 0) return 1
  return c.upDurationMs / span
}

/** What a Ping to `nodeId` carries: whole percent, 0 for a node that is not a validator. */
export function pingUptime(s: UptimeState, nodeId: string, now: number): number {
  const p = uptimePercent(s, nodeId, now)
  if (p === null || !(p > 0)) return 0
  return Math.min(100, Math.floor(p * 100))
}

/** Writes calc(n) for every record whose value changes. */
function persistAll(s: UptimeState, now: number): { records: Record<string, UptimeRecord>; persisted: string[] } {
  const records = { ...s.records }
  const persisted: string[] = []
  for (const id of Object.keys(s.records).sort()) {
    const r = s.records[id]
    const c = calcUptime(s, id, now)
    if (r === undefined || c === null) continue
    if (c.upDurationMs === r.upDurationMs && c.lastUpdatedMs === r.lastUpdatedMs) continue
    records[id] = { ...r, ...c }
    persisted.push(id)
  }
  return { records, persisted }
}

export function uptimeReducer(s: UptimeState, e: UptimeEvent): UptimeResult {
  switch (e.type) {
    case 'connect':
      if (e.nodeId === s.selfNodeId && s.connectedAt[e.nodeId] !== undefined) return { state: s, persisted: [] }
      return { state: { ...s, connectedAt: { ...s.connectedAt, [e.nodeId]: e.now } }, persisted: [] }
    case 'disconnect': {
      // the own node is always connected
      if (e.nodeId === s.selfNodeId || s.connectedAt[e.nodeId] === undefined) return { state: s, persisted: [] }
      const { [e.nodeId]: _, ...connectedAt } = s.connectedAt
      const r = s.records[e.nodeId]
      const c = s.tracking ? calcUptime(s, e.nodeId, e.now) : null
      if (r === undefined || c === null) return { state: { ...s, connectedAt }, persisted: [] }
      return {
        state: { ...s, connectedAt, records: { ...s.records, [e.nodeId]: { ...r, ...c } } },
        persisted: [e.nodeId],
      }
    }
    case 'startTracking': {
      if (s.tracking) return { state: s, persisted: [] }
      const { records, persisted } = persistAll(s, e.now)
      return { state: { ...s, tracking: true, records }, persisted }
    }
    case 'stopTracking': {
      if (!s.tracking) return { state: s, persisted: [] }
      const { records, persisted } = persistAll(s, e.now)
      return { state: { ...s, tracking: false, records }, persisted }
    }
    case 'addValidator': {
      if (s.records[e.nodeId] !== undefined) return { state: s, persisted: [] }
      const r: UptimeRecord = { upDurationMs: 0, lastUpdatedMs: e.startTimeMs, startTimeMs: e.startTimeMs }
      return { state: { ...s, records: { ...s.records, [e.nodeId]: r } }, persisted: [e.nodeId] }
    }
    case 'removeValidator': {
      if (s.records[e.nodeId] === undefined) return { state: s, persisted: [] }
      const { [e.nodeId]: _, ...records } = s.records
      return { state: { ...s, records }, persisted: [e.nodeId] }
    }
  }
}

const isTime = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0

/** One persisted record as JSON. */
export const encodeUptimeRecord = (r: UptimeRecord): string =>
  JSON.stringify({ upDurationMs: r.upDurationMs, lastUpdatedMs: r.lastUpdatedMs, startTimeMs: r.startTimeMs })

/** Parses one persisted record; throws on anything else. */
export function decodeUptimeRecord(text: string): UptimeRecord {
  const v: unknown = JSON.parse(text)
  if (typeof v !== 'object' || v === null) throw new Error('uptime record: not an object')
  const { upDurationMs, lastUpdatedMs, startTimeMs } = v as Record<string, unknown>
  if (!isTime(upDurationMs) || !isTime(lastUpdatedMs) || !isTime(startTimeMs)) {
    throw new Error('uptime record: upDurationMs, lastUpdatedMs and startTimeMs must be non-negative numbers')
  }
  return { upDurationMs, lastUpdatedMs, startTimeMs }
}

/** The persisted part of the state (every record) as JSON. */
export const serializeUptime = (s: UptimeState): string =>
  JSON.stringify({
    version: 1,
    records: Object.fromEntries(
      Object.keys(s.records)
        .sort()
        .map((id) => [id, JSON.parse(encodeUptimeRecord(s.records[id] as UptimeRecord))]),
    ),
  })

/** A restarted node's state from `serializeUptime`'s JSON: not tracking, only the own node connected. */
export function deserializeUptime(text: string, init: Omit<UptimeInit, 'records'>): UptimeState {
  const v: unknown = JSON.parse(text)
  if (typeof v !== 'object' || v === null || (v as { version?: unknown }).version !== 1) {
    throw new Error('uptime state: unknown format')
  }
  const raw = (v as { records?: unknown }).records
  if (typeof raw !== 'object' || raw === null) throw new Error('uptime state: records missing')
  const records: Record<string, UptimeRecord> = {}
  for (const [id, r] of Object.entries(raw)) records[id] = decodeUptimeRecord(JSON.stringify(r))
  return uptimeCreate({ ...init, records })
}

/** `info.uptime`'s error when the own weight is 0. */
export const UPTIME_ERROR_NOT_A_VALIDATOR = "couldn't get node uptime: node is not a validator"

export interface ObservedUptime {
  /** the connected peer's weight */
  weight: number
  /** its latest Ping.uptime: its view of our uptime, 0-100 */
  percent: number
}

export interface WeightedUptime {
  rewardingStakePercentage: string
  weightedAveragePercentage: string
}

/**
 * `info.uptime` (network.go NodeUptime): the own node counts as 100 % up; each connected peer of weight w > 0
 * adds `percent * w`, and w to the rewarding stake when `percent / 100 >= requirement`. Both divide by the total
 * weight (disconnected validators count as 0); 4 decimals. Null when the own weight is 0
 * (`UPTIME_ERROR_NOT_A_VALIDATOR`).
 */
export function weightedUptime(
  observed: ObservedUptime[],
  requirement: number,
  stake: { selfWeight: number; totalWeight: number },
): WeightedUptime | null {
  if (!(stake.selfWeight > 0)) return null
  let weighted = 100 * stake.selfWeight
  let rewarding = stake.selfWeight
  for (const o of observed) {
    if (!(o.weight > 0)) continue
    weighted += o.percent * o.weight
    if (o.percent / 100 >= requirement) rewarding += o.weight
  }
  return {
    rewardingStakePercentage: Math.abs((100 * rewarding) / stake.totalWeight).toFixed(4),
    weightedAveragePercentage: Math.abs(weighted / stake.totalWeight).toFixed(4),
  }
}
