/**
 * Decoding one config value the way Go's encoding/json fills coreth's Config field, with Go's messages
 * (`json: cannot unmarshal <what> into Go struct field Config.<key> of type <type>`). Integers beyond 2^53-1
 * are refused with a Firn message (Go would take them; Firn keeps numbers as JS numbers).
 */
import { durationFromJson } from './go-duration.js'
import type { JsonNode } from './go-json.js'
import type { KeySpec, Kind } from './keys.js'

export class DecodeError extends Error {}

const GO_TYPES: Record<Kind, string> = {
  bool: 'bool',
  string: 'string',
  float64: 'float64',
  int: 'int',
  int64: 'int64',
  uint64: 'uint64',
  uint16: 'uint16',
  duration: 'config.Duration',
  strings: '[]string',
  hashes: '[]common.Hash',
  bytesList: '[]hexutil.Bytes',
  ptrUint64: 'uint64',
  ptrGas: 'gas.Gas',
  ptrBool: 'bool',
}

const RANGES: Record<string, [bigint, bigint]> = {
  int: [-(1n << 63n), (1n << 63n) - 1n],
  int64: [-(1n << 63n), (1n << 63n) - 1n],
  uint64: [0n, (1n << 64n) - 1n],
  uint16: [0n, 65_535n],
}

/** Returns the decoded value, or `undefined` for a JSON null that leaves the field as it was (Go's no-op). */
export function decodeValue(spec: KeySpec, node: JsonNode): unknown {
  const mismatch = (what: string, type = GO_TYPES[spec.kind]) =>
    new DecodeError(`json: cannot unmarshal ${what} into Go struct field Config.${spec.key} of type ${type}`)
  switch (spec.kind) {
    case 'duration':
      return Number(durationFromJson(node)) / 1e6
    case 'bool':
    case 'ptrBool':
      if (node.kind === 'null') return spec.kind === 'ptrBool' ? null : undefined
      if (node.kind !== 'bool') throw mismatch(node.kind)
      return node.value
    case 'string':
      if (node.kind === 'null') return undefined
      if (node.kind !== 'string') throw mismatch(node.kind)
      return node.value
    case 'float64': {
      if (node.kind === 'null') return undefined
      if (node.kind !== 'number') throw mismatch(node.kind)
      const n = Number(node.raw)
      if (!Number.isFinite(n)) throw mismatch(`number ${node.raw}`)
      return n
    }
    case 'int':
    case 'int64':
    case 'uint64':
    case 'uint16':
    case 'ptrUint64':
    case 'ptrGas': {
      const pointer = spec.kind === 'ptrUint64' || spec.kind === 'ptrGas'
      if (node.kind === 'null') return pointer ? null : undefined
      if (node.kind !== 'number') throw mismatch(node.kind)
      const range = RANGES[pointer ? 'uint64' : spec.kind]!
      if (!/^-?[0-9]+$/.test(node.raw)) throw mismatch(`number ${node.raw}`)
      const v = BigInt(node.raw)
      if (v < range[0] || v > range[1] || (node.raw === '-0' && range[0] === 0n)) throw mismatch(`number ${node.raw}`)
      if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new DecodeError(`${spec.key}: ${node.raw} is beyond ±9007199254740991, the largest integer Firn accepts`)
      }
      return Number(v)
    }
    case 'strings':
      return list(node, mismatch, (item) => {
        if (item.kind === 'null') return ''
        if (item.kind !== 'string') throw mismatch(item.kind, 'string')
        return item.value
      })
    case 'hashes':
      return list(node, mismatch, (item) => hexItem(item, spec.key, 'common.Hash', 32))
    case 'bytesList':
      return list(node, mismatch, (item) => hexItem(item, spec.key, 'hexutil.Bytes', undefined))
  }
}

function list<T>(node: JsonNode, mismatch: (what: string) => DecodeError, item: (n: JsonNode) => T): T[] | null {
  if (node.kind === 'null') return null
  if (node.kind !== 'array') throw mismatch(node.kind)
  return node.items.map(item)
}

/** hexutil's fixed/variable byte decoding with its texts; returns lowercase 0x hex. */
function hexItem(node: JsonNode, key: string, type: string, size: number | undefined): string {
  if (node.kind === 'null') return size === undefined ? '0x' : `0x${'00'.repeat(size)}`
  if (node.kind !== 'string') throw new DecodeError(`json: cannot unmarshal non-string into Go value of type ${type}`)
  const bad = (why: string) =>
    new DecodeError(`json: cannot unmarshal ${why} into Go struct field Config.${key} of type ${type}`)
  const s = node.value
  if (size === undefined && s === '') return '0x'
  if (!/^0[xX]/.test(s)) throw bad('hex string without 0x prefix')
  const body = s.slice(2)
  if (size !== undefined && body.length !== size * 2) {
    throw bad(`hex string has length ${body.length}, want ${size * 2} for ${type}`)
  }
  if (body.length % 2 !== 0) throw bad('hex string of odd length')
  if (!/^[0-9a-fA-F]*$/.test(body)) throw bad('invalid hex string')
  return `0x${body.toLowerCase()}`
}
