/**
 * Typed params with Go's decoding rules. A method declares its params as `fields({...})` of decoders;
 * keys match case-insensitively (Go's folding, last match wins), unknown keys are ignored, a missing or
 * `null` field is the decoder's zero, and any mismatch is the reference's generic argument error.
 *
 *   const parse = fields({ chain: str, nodeIDs: optional(array(custom(parseNodeID, ''))) })
 */
import { FirnError } from '../runtime/errors.js'
import { goFoldName } from './go-fold.js'

/** The reference's text for params that do not decode (-32000). */
export const ARGUMENT_ERROR =
  "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls"

/** The generic argument error: params that do not decode. */
export const argumentError = (): FirnError => new FirnError(ARGUMENT_ERROR)

/** Turns one JSON value (never null or missing: those give `zero`) into T, or throws. */
export interface Decoder<T> {
  decode(v: unknown): T
  zero: T
}

/** What a method does with its normalised params: an object, or undefined for none/null/[]. Throws on bad input. */
export type ParamParser<T> = (raw: Record<string, unknown> | undefined) => T

/** Thrown inside decoders; `fields` turns every failure into the generic argument error. */
const mismatch = (): Error => new Error('param mismatch')

export const str: Decoder<string> = {
  decode: (v) => {
    if (typeof v !== 'string') throw mismatch()
    return v
  },
  zero: '',
}

export const bool: Decoder<boolean> = {
  decode: (v) => {
    if (typeof v !== 'boolean') throw mismatch()
    return v
  },
  zero: false,
}

const DECIMAL = /^[0-9]+$/

/** `json.Uint64`-style: a decimal string (quotes stripped, no escapes) or a bare integer, up to `max`. */
function unsigned(max: bigint, v: unknown): bigint {
  let n: bigint
  if (typeof v === 'string') {
    if (!DECIMAL.test(v)) throw mismatch()
    n = BigInt(v)
  } else if (typeof v === 'number') {
    // bare numbers arrive through JSON.parse: only exactly representable integers are trusted
    if (!Number.isSafeInteger(v) || v < 0 || Object.is(v, -0)) throw mismatch()
    n = BigInt(v)
  } else {
    throw mismatch()
  }
  if (n > max) throw mismatch()
  return n
}

export const uint64: Decoder<bigint> = { decode: (v) => unsigned(0xffff_ffff_ffff_ffffn, v), zero: 0n }
export const uint32: Decoder<number> = { decode: (v) => Number(unsigned(0xffff_ffffn, v)), zero: 0 }

const FLOAT = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/
const SPECIAL_FLOAT = /^[+-]?(?:inf|infinity|nan)$/i

/** `json.Float64`-style: a number, or a string `strconv.ParseFloat` accepts (decimal forms, inf, nan). */
export const float: Decoder<number> = {
  decode: (v) => {
    if (typeof v === 'number') return v
    if (typeof v !== 'string') throw mismatch()
    if (FLOAT.test(v)) return Number(v)
    if (!SPECIAL_FLOAT.test(v)) throw mismatch()
    if (/nan/i.test(v)) return Number.NaN
    return v.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY
  },
  zero: 0,
}

/** A JSON array of `item`; null/missing gives undefined (Go's nil slice). */
export function array<T>(item: Decoder<T>): Decoder<T[] | undefined> {
  return {
    decode: (v) => {
      if (!Array.isArray(v)) throw mismatch()
      return v.map((x) => (x === null ? item.zero : item.decode(x)))
    },
    zero: undefined,
  }
}

/** Missing or null gives undefined. */
export function optional<T>(inner: Decoder<T>): Decoder<T | undefined> {
  return { decode: (v) => inner.decode(v), zero: undefined }
}

/** Any conversion: `decodeFn` throws on bad input (the thrown error is replaced by the argument error). */
export function custom<T>(decodeFn: (v: unknown) => T, zero: T): Decoder<T> {
  return { decode: decodeFn, zero }
}

type Decoded<S> = { [K in keyof S]: S[K] extends Decoder<infer T> ? T : never }

function structOf<S extends Record<string, Decoder<unknown>>>(
  spec: S,
): (raw: Record<string, unknown> | undefined) => Decoded<S> {
  const names = Object.keys(spec)
  const byFolded = new Map(names.map((name) => [goFoldName(name), name]))
  return (raw) => {
    const out: Record<string, unknown> = {}
    for (const name of names) out[name] = spec[name]!.zero
    if (raw === undefined) return out as Decoded<S>
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw mismatch()
    for (const key of Object.keys(raw)) {
      const name = spec[key] !== undefined && Object.hasOwn(spec, key) ? key : byFolded.get(goFoldName(key))
      if (name === undefined) continue
      const v = raw[key]
      const decoder = spec[name]!
      out[name] = v === null ? decoder.zero : decoder.decode(v)
    }
    return out as Decoded<S>
  }
}

/** A nested JSON object decoded with the same rules as the top-level params. */
export function object<S extends Record<string, Decoder<unknown>>>(spec: S): Decoder<Decoded<S>> {
  const decode = structOf(spec)
  // one zero value shared by every call: frozen so no handler can change it for the next one
  return { decode: (v) => decode(v as Record<string, unknown>), zero: Object.freeze(decode(undefined)) }
}

/** The params parser of a method with named fields. Any failure throws the generic argument error. */
export function fields<S extends Record<string, Decoder<unknown>>>(spec: S): ParamParser<Decoded<S>> {
  const decode = structOf(spec)
  return (raw) => {
    try {
      return decode(raw)
    } catch {
      throw argumentError()
    }
  }
}

/** For methods without arguments: any normalised params are accepted and ignored. */
export const noParams: ParamParser<undefined> = () => undefined

/**
 * The reference's params forms -> what a parser gets: absent/null -> undefined; an object -> itself;
 * an array -> its first element (Go decodes into a one-element array), `[]` or `[null]` -> undefined.
 * Anything else (a scalar, `[5]`) throws the generic argument error.
 */
export function normaliseParams(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined
    const first: unknown = value[0]
    if (first === null) return undefined
    if (typeof first === 'object' && !Array.isArray(first)) return first as Record<string, unknown>
    throw argumentError()
  }
  if (typeof value === 'object') return value as Record<string, unknown>
  throw argumentError()
}
