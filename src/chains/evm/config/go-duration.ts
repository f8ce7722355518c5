/**
 * Go durations as coreth's config reads them (`cast.ToDurationE` over the decoded JSON value): a number is
 * nanoseconds, a string is `time.ParseDuration` (with "ns" appended when it has no unit letter), anything else
 * is refused. Values are bigint nanoseconds; `formatGoDuration` is Go's `Duration.String()`.
 */
import type { JsonNode } from './go-json.js'

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
}
const MAX_INT64 = (1n << 63n) - 1n

export class GoDurationError extends Error {}

/** Go's time.ParseDuration; throws with Go's text. */
export function parseGoDuration(s: string): bigint {
  const invalid = () => new GoDurationError(`time: invalid duration ${JSON.stringify(s)}`)
  let rest = s
  let neg = false
  if (rest.startsWith('-') || rest.startsWith('+')) {
    neg = rest[0] === '-'
    rest = rest.slice(1)
  }
  if (rest === '0') return 0n
  if (rest === '') throw invalid()
  let total = 0n
  while (rest !== '') {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(rest)
    const whole = m?.[1] ?? ''
    const frac = m?.[2]
    if (whole === '' && (frac === undefined || frac === '')) throw invalid()
    rest = rest.slice(m?.[0].length ?? 0)
    const unitName = /^[^0-9.]+/.exec(rest)?.[0]
    if (unitName === undefined) throw new GoDurationError(`time: missing unit in duration ${JSON.stringify(s)}`)
    const unit = UNITS[unitName]
    if (unit === undefined) {
      throw new GoDurationError(`time: unknown unit ${JSON.stringify(unitName)} in duration ${JSON.stringify(s)}`)
    }
    rest = rest.slice(unitName.length)
    let v = BigInt(whole === '' ? '0' : whole) * unit
    if (frac !== undefined && frac !== '') v += (BigInt(frac) * unit) / 10n ** BigInt(frac.length)
    total += v
    if (total > MAX_INT64 + (neg ? 1n : 0n)) throw invalid()
  }
  return neg ? -total : total
}

/** cast.ToDurationE on a decoded JSON value; throws with cast's or Go's text. */
export function durationFromJson(node: JsonNode): bigint {
  switch (node.kind) {
    case 'number': {
      const n = Number(node.raw)
      if (!Number.isFinite(n) || Math.abs(n) > 2 ** 63) {
        throw new GoDurationError(`unable to cast ${node.raw} of type float64 to Duration`)
      }
      return BigInt(Math.trunc(n))
    }
    case 'string':
      return parseGoDuration(/[nsuµmh]/.test(node.value) ? node.value : `${node.value}ns`)
    case 'bool':
      throw new GoDurationError(`unable to cast ${node.value} of type bool to Duration`)
    case 'null':
      throw new GoDurationError('unable to cast <nil> of type <nil> to Duration')
    case 'array':
      throw new GoDurationError('unable to cast array of type []interface {} to Duration')
    case 'object':
      throw new GoDurationError('unable to cast object of type map[string]interface {} to Duration')
  }
}

/** Go's Duration.String(): "0s", "100ms", "1.5µs", "10m0s", "1h30m0s". */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s'
  const neg = ns < 0n
  let u = neg ? -ns : ns
  let out: string
  if (u < 1_000_000_000n) {
    const [unit, size] = u < 1_000n ? ['ns', 1n] : u < 1_000_000n ? ['µs', 1_000n] : ['ms', 1_000_000n]
    out = `${fraction(u, size as bigint)}${unit}`
  } else {
    const h = u / 3_600_000_000_000n
    u %= 3_600_000_000_000n
    const m = u / 60_000_000_000n
    u %= 60_000_000_000n
    out = `${fraction(u, 1_000_000_000n)}s`
    if (h > 0n || m > 0n) out = `${m}m${out}`
    if (h > 0n) out = `${h}h${out}`
  }
  return neg ? `-${out}` : out
}

function fraction(v: bigint, unit: bigint): string {
  const whole = v / unit
  const rem = v % unit
  if (rem === 0n) return whole.toString()
  const width = unit.toString().length - 1
  return `${whole}.${rem.toString().padStart(width, '0').replace(/0+$/, '')}`
}
