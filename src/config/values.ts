/**
 * Turning flag text (or config-file JSON values) into typed values, with pflag/strconv-style error texts:
 * `invalid argument "abc" for "--http-port" flag: strconv.ParseUint: parsing "abc": invalid syntax`.
 */
import type { FlagKind } from './flags.js'

export type FlagValue = string | boolean | number | string[] | number[]

const syntax = (fn: string, text: string) => `${fn}: parsing ${JSON.stringify(text)}: invalid syntax`

export function parseBool(text: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false
  throw new Error(syntax('strconv.ParseBool', text))
}

export function parseUint(text: string): number {
  if (!/^[0-9]+$/.test(text)) throw new Error(syntax('strconv.ParseUint', text))
  const n = Number(text)
  if (!Number.isSafeInteger(n))
    throw new Error(`strconv.ParseUint: parsing ${JSON.stringify(text)}: value out of range`)
  return n
}

export function parseFloatStrict(text: string): number {
  const n = Number(text)
  if (text.trim() === '' || !Number.isFinite(n)) throw new Error(syntax('strconv.ParseFloat', text))
  return n
}

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Go duration text (`1m30s`, `500ms`, `0`) -> milliseconds. */
export function parseDuration(text: string): number {
  if (text === '0') return 0
  const re = /([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)/gy
  let total = 0
  let consumed = 0
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * (UNITS[m[2] as string] as number)
    consumed = re.lastIndex
  }
  if (consumed === 0 || consumed !== text.length) throw new Error(`time: invalid duration ${JSON.stringify(text)}`)
  return total
}

/** Parse text given on the command line or in an env var. */
export function parseText(kind: FlagKind, text: string): FlagValue {
  switch (kind) {
    case 'string':
      return text
    case 'bool':
      return parseBool(text)
    case 'uint':
      return parseUint(text)
    case 'float':
      return parseFloatStrict(text)
    case 'duration':
      return parseDuration(text)
    case 'list':
      return text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
    case 'intList':
      return text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
        .map((s) => {
          if (!/^-?[0-9]+$/.test(s)) throw new Error(syntax('strconv.Atoi', s))
          return Number(s)
        })
  }
}

/** Accept a config-file JSON value: typed JSON, or text parsed as on the command line. */
export function parseJsonValue(kind: FlagKind, value: unknown): FlagValue {
  if (typeof value === 'string') return parseText(kind, value)
  if (kind === 'bool' && typeof value === 'boolean') return value
  if ((kind === 'uint' || kind === 'float' || kind === 'duration') && typeof value === 'number') {
    if (kind === 'uint' && !(Number.isSafeInteger(value) && value >= 0))
      throw new Error(`${value} is not an unsigned integer`)
    if (kind === 'duration') return value / 1e6 // a bare number is nanoseconds, as Go's time.Duration
    return value
  }
  if (kind === 'list' && Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[]
  if (kind === 'intList' && Array.isArray(value) && value.every((v) => Number.isInteger(v))) return value as number[]
  if (kind === 'intList' && typeof value === 'number' && Number.isInteger(value)) return [value]
  throw new Error(`cannot use ${JSON.stringify(value)} as a ${kind}`)
}
