/**
 * Upgrade schedules as `info.upgrades` reports them (reference/node-api.md section 7.3). Keys are in the
 * reference's order; times are RFC 3339 UTC; `9999-12-01T00:00:00Z` means "unscheduled".
 */
import { NetworkId } from './networks.js'

export interface UpgradeSchedule {
  apricotPhase1Time: string
  apricotPhase2Time: string
  apricotPhase3Time: string
  apricotPhase4Time: string
  apricotPhase4MinPChainHeight: number
  apricotPhase5Time: string
  apricotPhasePre6Time: string
  apricotPhase6Time: string
  apricotPhasePost6Time: string
  banffTime: string
  cortinaTime: string
  cortinaXChainStopVertexID: string
  durangoTime: string
  etnaTime: string
  fortunaTime: string
  graniteTime: string
  /** nanoseconds */
  graniteEpochDuration: number
  heliconTime: string
}

export const UNSCHEDULED = '9999-12-01T00:00:00Z'

const MAINNET: UpgradeSchedule = {
  apricotPhase1Time: '2021-03-31T14:00:00Z',
  apricotPhase2Time: '2021-05-10T11:00:00Z',
  apricotPhase3Time: '2021-08-24T14:00:00Z',
  apricotPhase4Time: '2021-09-22T21:00:00Z',
  apricotPhase4MinPChainHeight: 793005,
  apricotPhase5Time: '2021-12-02T18:00:00Z',
  apricotPhasePre6Time: '2022-09-05T01:30:00Z',
  apricotPhase6Time: '2022-09-06T20:00:00Z',
  apricotPhasePost6Time: '2022-09-07T03:00:00Z',
  banffTime: '2022-10-18T16:00:00Z',
  cortinaTime: '2023-04-25T15:00:00Z',
  cortinaXChainStopVertexID: 'jrGWDh5Po9FMj54depyunNixpia5PN4aAYxfmNzU8n752Rjga',
  durangoTime: '2024-03-06T16:00:00Z',
  etnaTime: '2024-12-16T17:00:00Z',
  fortunaTime: '2025-04-08T15:00:00Z',
  graniteTime: '2025-11-19T16:00:00Z',
  graniteEpochDuration: 300_000_000_000,
  heliconTime: UNSCHEDULED,
}

const FUJI: UpgradeSchedule = {
  apricotPhase1Time: '2021-03-26T14:00:00Z',
  apricotPhase2Time: '2021-05-05T14:00:00Z',
  apricotPhase3Time: '2021-08-16T19:00:00Z',
  apricotPhase4Time: '2021-09-16T21:00:00Z',
  apricotPhase4MinPChainHeight: 47437,
  apricotPhase5Time: '2021-11-24T15:00:00Z',
  apricotPhasePre6Time: '2022-09-06T20:00:00Z',
  apricotPhase6Time: '2022-09-06T20:00:00Z',
  apricotPhasePost6Time: '2022-09-07T06:00:00Z',
  banffTime: '2022-10-03T14:00:00Z',
  cortinaTime: '2023-04-06T15:00:00Z',
  cortinaXChainStopVertexID: '2D1cmbiG36BqQMRyHt4kFhWarmatA1ighSpND3FeFgz3vFVtCZ',
  durangoTime: '2024-02-13T16:00:00Z',
  etnaTime: '2024-11-25T16:00:00Z',
  fortunaTime: '2025-03-13T15:00:00Z',
  graniteTime: '2025-10-29T15:00:00Z',
  graniteEpochDuration: 300_000_000_000,
  heliconTime: UNSCHEDULED,
}

const INITIAL = '2020-12-05T05:00:00Z'

const DEFAULT: UpgradeSchedule = {
  apricotPhase1Time: INITIAL,
  apricotPhase2Time: INITIAL,
  apricotPhase3Time: INITIAL,
  apricotPhase4Time: INITIAL,
  apricotPhase4MinPChainHeight: 0,
  apricotPhase5Time: INITIAL,
  apricotPhasePre6Time: INITIAL,
  apricotPhase6Time: INITIAL,
  apricotPhasePost6Time: INITIAL,
  banffTime: INITIAL,
  cortinaTime: INITIAL,
  cortinaXChainStopVertexID: '11111111111111111111111111111111LpoYY',
  durangoTime: INITIAL,
  etnaTime: INITIAL,
  fortunaTime: INITIAL,
  graniteTime: INITIAL,
  graniteEpochDuration: 30_000_000_000,
  heliconTime: UNSCHEDULED,
}

/** The schedule of a network: mainnet and fuji have their own, every other network the default one. */
export function upgradeSchedule(networkId: number): UpgradeSchedule {
  if (networkId === NetworkId.mainnet) return MAINNET
  if (networkId === NetworkId.fuji) return FUJI
  return DEFAULT
}

/** Unix seconds of graniteTime: the `upgrade_time` the handshake carries. */
export const upgradeTimeSeconds = (s: UpgradeSchedule): number => Math.floor(Date.parse(s.graniteTime) / 1000)
