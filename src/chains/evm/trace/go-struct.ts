/**
 * Go's encoding/json into a flat struct, for the trace configs: keys match field names case-insensitively
 * (the last duplicate wins), unknown keys are ignored, null leaves a field unset, and a wrong type fails with
 * Go's text (`json: cannot unmarshal string into Go struct field TraceConfig.Limit of type int`).
 */
import { goJsonKind } from '../../../rpc/eth-args.js'

export type GoKind = 'bool' | 'int' | 'uint64' | 'string' | 'raw' | 'hexUint'

export interface GoField {
  /** the JSON name (tag, or the Go field name) */
  name: string
  kind: GoKind
}

export class GoJsonError extends Error {}

const GO_TYPE: Record<GoKind, string> = {
  bool: 'bool',
  int: 'int',
  uint64: 'uint64',
  string: 'string',
  raw: 'json.RawMessage',
  hexUint: 'hexutil.Uint',
}

const MAX_INT64 = (1n << 63n) - 1n
const MAX_UINT64 = (1n << 64n) - 1n

/** Decode `value` into the struct `struct` (Go type `goType` for the top-level error); returns name -> value. */
export function decodeGoStruct(
  value: unknown,
  goType: string,
  struct: string,
  fields: readonly GoField[],
): Map<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new GoJsonError(`json: cannot unmarshal ${goJsonKind(value)} into Go value of type ${goType}`)
  const out = new Map<string, unknown>()
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const field = fields.find((f) => f.name === key) ?? fields.find((f) => f.name.toLowerCase() === key.toLowerCase())
    if (field === undefined || v === null) continue
    out.set(field.name, decodeField(v, field, struct))
  }
  return out
}

function decodeField(v: unknown, f: GoField, struct: string): unknown {
  const fail = (what: string) =>
    new GoJsonError(
      `json: cannot unmarshal ${what} into Go struct field ${struct}.${f.name} of type ${GO_TYPE[f.kind]}`,
    )
  switch (f.kind) {
    case 'raw':
      return v
    case 'bool':
      if (typeof v !== 'boolean') throw fail(goJsonKind(v))
      return v
    case 'string':
      if (typeof v !== 'string') throw fail(goJsonKind(v))
      return v
    case 'int':
    case 'uint64': {
      if (typeof v !== 'number') throw fail(goJsonKind(v))
      const text = JSON.stringify(v)
      if (!Number.isInteger(v)) throw fail(`number ${text}`)
      const n = BigInt(v)
      if (f.kind === 'int' ? n < -MAX_INT64 - 1n || n > MAX_INT64 : n < 0n || n > MAX_UINT64)
        throw fail(`number ${text}`)
      return n
    }
    case 'hexUint': {
      if (typeof v !== 'string') throw fail('non-string')
      if (v === '') return 0n
      const digits = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : undefined
      if (digits === undefined) throw fail('hex string without 0x prefix')
      if (digits === '') throw fail('hex string "0x"')
      if (digits.length > 1 && digits[0] === '0') throw fail('hex number with leading zero digits')
      if (!/^[0-9a-fA-F]+$/.test(digits)) throw fail('invalid hex string')
      const n = BigInt(`0x${digits}`)
      if (n > MAX_UINT64) throw fail('hex number > 64 bits')
      return n
    }
  }
}
