/**
 * The node config's small checks and helpers (src/config/node-config.ts builds the config with them): the
 * benchlist's ranges, the plugin directory, the default public IP, IP literals, and freezing the result.
 */
import { statSync } from 'node:fs'
import { ConfigError } from './sources.js'

/** the benchlist settings the checks read (NodeConfig['benchlist']) */
interface BenchlistRanges {
  halflifeMs: number
  benchProbability: number
  unbenchProbability: number
  benchDurationMs: number
}

export function checkBenchlist<B extends BenchlistRanges>(b: B): B {
  if (!(b.halflifeMs > 0)) throw new ConfigError('--benchlist-halflife must be positive')
  for (const [name, p] of [
    ['benchlist-bench-probability', b.benchProbability],
    ['benchlist-unbench-probability', b.unbenchProbability],
  ] as const) {
    if (!(p > 0 && p < 1)) throw new ConfigError(`--${name} must be in the range (0, 1), got ${p}`)
  }
  if (!(b.unbenchProbability < b.benchProbability)) {
    throw new ConfigError('--benchlist-unbench-probability must be less than --benchlist-bench-probability')
  }
  if (!(b.benchDurationMs > 0)) throw new ConfigError('--benchlist-duration must be positive')
  return b
}

export function checkDirExists(dir: string): void {
  let isDir: boolean
  try {
    isDir = statSync(dir).isDirectory()
  } catch (err) {
    throw new ConfigError(`plugin dir ${JSON.stringify(dir)} not found: ${(err as Error).message}`)
  }
  if (!isDir) throw new ConfigError(`plugin dir is not a directory: ${JSON.stringify(dir)}`)
}

/** With no --public-ip the node does not ask the internet: it uses its staking host, or loopback. */
export function defaultPublicIp(stakingHost: string): string {
  if (stakingHost === '' || stakingHost === '0.0.0.0' || stakingHost === '::') return '127.0.0.1'
  return stakingHost
}

export function isIpLiteral(s: string): boolean {
  return /^(\d{1,3})(\.\d{1,3}){3}$/.test(s) || (s.includes(':') && /^[0-9a-fA-F:.]+$/.test(s))
}

export function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null) {
    for (const v of Object.values(o)) deepFreeze(v)
    Object.freeze(o)
  }
  return o
}
