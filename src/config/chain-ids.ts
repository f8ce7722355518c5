/** Well-known chain and asset IDs of each network (reference/node-api.md section 7.2). */
import { NetworkId } from './networks.js'

export const P_CHAIN_ID = '11111111111111111111111111111111LpoYY'

export interface ChainIds {
  P: string
  X: string
  C: string
  avaxAssetId: string
}

const MAINNET: ChainIds = {
  P: P_CHAIN_ID,
  X: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM',
  C: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5',
  avaxAssetId: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z',
}

const FUJI: ChainIds = {
  P: P_CHAIN_ID,
  X: '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm',
  C: 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp',
  avaxAssetId: 'U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK',
}

/** Local and every custom network use the local genesis's P, X and C IDs and asset (a `--genesis-file` declares more chains). */
const LOCAL: ChainIds = {
  P: P_CHAIN_ID,
  X: '2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed',
  C: '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC',
  avaxAssetId: '2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe',
}

export function chainIds(networkId: number): ChainIds {
  if (networkId === NetworkId.mainnet) return MAINNET
  if (networkId === NetworkId.fuji) return FUJI
  return LOCAL
}

/** Genesis chain aliases in the reference's order (primary alias first). */
export const GENESIS_CHAIN_ALIASES: Record<'P' | 'X' | 'C', string[]> = {
  P: ['P', 'platform'],
  X: ['X', 'avm'],
  C: ['C', 'evm'],
}
