/** `info.peers` entries in the reference's key order and encodings (reference/node-api.md section 3). */
import { P_CHAIN_ID } from '../../config/chain-ids.js'
import type { PeerInfo } from '../../network/peer-view.js'

const pad = (n: number) => String(Math.trunc(Math.abs(n))).padStart(2, '0')

/** RFC 3339 in the process's local time zone, whole seconds (`Z` when the offset is zero), as Go prints it. */
export function rfc3339Local(d: Date): string {
  const off = -d.getTimezoneOffset()
  const zone = off === 0 ? 'Z' : `${off > 0 ? '+' : '-'}${pad(off / 60)}:${pad(off % 60)}`
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${zone}`
}

export function peerEntry(p: PeerInfo) {
  return {
    ip: p.ip,
    publicIP: p.publicIP,
    nodeID: p.nodeId,
    version: p.version,
    upgradeTime: p.upgradeTime,
    lastSent: rfc3339Local(p.lastSent),
    lastReceived: rfc3339Local(p.lastReceived),
    observedUptime: String(p.observedUptime),
    trackedSubnets: [...new Set([...p.trackedSubnets, P_CHAIN_ID])].sort(),
    supportedACPs: p.supportedACPs,
    objectedACPs: p.objectedACPs,
    benched: p.benched,
  }
}
