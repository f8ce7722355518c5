/** Network ids and names (reference/node-api.md section 7.1). */
export const NetworkId = { mainnet: 1, cascade: 2, denali: 3, everest: 4, fuji: 5, testing: 10, local: 12345 } as const

const NAMES: Record<number, string> = {
  1: 'mainnet',
  2: 'cascade',
  3: 'denali',
  4: 'everest',
  5: 'fuji',
  10: 'testing',
  12345: 'local',
}

const ALIASES: Record<string, number> = { ...invert(NAMES), testnet: 5 }

const HRPS: Record<number, string> = {
  1: 'avax',
  2: 'cascade',
  3: 'denali',
  4: 'everest',
  5: 'fuji',
  10: 'testing',
  12345: 'local',
}

function invert(m: Record<number, string>): Record<string, number> {
  return Object.fromEntries(Object.entries(m).map(([id, name]) => [name, Number(id)]))
}

/** `info.getNetworkName`: the well-known name, or `network-<id>`. */
export const networkName = (id: number): string => NAMES[id] ?? `network-${id}`

/** The bech32 human-readable part of addresses on this network. */
export const networkHrp = (id: number): string => HRPS[id] ?? 'custom'

export const isPublicNetwork = (id: number): boolean => id === NetworkId.mainnet || id === NetworkId.fuji

/**
 * `--network-id`: lower-cased and matched against the names, else an optional `network-` prefix is stripped and
 * the rest parsed as a decimal uint32. The error text is the reference's.
 */
export function parseNetworkId(value: string): number {
  const lower = value.toLowerCase()
  const known = ALIASES[lower]
  if (known !== undefined) return known
  const digits = lower.startsWith('network-') ? lower.slice('network-'.length) : lower
  if (/^[0-9]+$/.test(digits)) {
    const n = Number(digits)
    if (Number.isSafeInteger(n) && n <= 0xffffffff) return n
  }
  throw new Error(`failed to parse network name: "${lower}"`)
}
