/**
 * Reading the network genesis file's JSON tree (src/chains/evm/config/go-json.ts keeps every number's text, so
 * uint64 amounts above 2^53 stay exact) the way Go's encoding/json fills the reference's structs: members match
 * their field names exactly, else case-insensitively; `null` is the zero value. Firn is stricter than Go in one way:
 * a member that names no field is an error. Every error names the field by its path (`initialStakers[2].nodeID`).
 */

import { FirnError } from '../../runtime/errors.js'
import type { JsonNode } from '../evm/config/go-json.js'

/** A genesis file value that cannot be used; `path` names the field ('' for the whole file). */
export class GenesisFieldError extends FirnError {
  override readonly name = 'GenesisFieldError'
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(path === '' ? problem : `${path}: ${problem}`)
  }
}

export function fieldFail(path: string, problem: string): never {
  throw new GenesisFieldError(path, problem)
}

/** `a.b`; either part may be empty */
export const fieldPath = (path: string, key: string): string =>
  path === '' ? key : key === '' ? path : `${path}.${key}`

function kind(node: JsonNode): string {
  return node.kind === 'array' || node.kind === 'object' ? `an ${node.kind}` : `a ${node.kind}`
}

/** The members of an object by field name; null gives no members. */
export function objectFields(node: JsonNode, path: string, known: readonly string[]): Map<string, JsonNode> {
  const out = new Map<string, JsonNode>()
  if (node.kind === 'null') return out
  if (node.kind !== 'object') fieldFail(path, `expected a JSON object, got ${kind(node)}`)
  const folded = new Map(known.map((k) => [k.toLowerCase(), k]))
  const exact = new Set<string>()
  for (const [key, value] of node.members) {
    const name = known.includes(key) ? key : folded.get(key.toLowerCase())
    if (name === undefined) fieldFail(fieldPath(path, key), `unknown field (known: ${known.join(', ')})`)
    if (exact.has(name) && name !== key) continue
    if (name === key) exact.add(name)
    out.set(name, value)
  }
  return out
}

/** An unsigned integer of `bits` bits (Go's uint32/uint64): a JSON integer literal, no sign, no fraction. */
export function uintField(node: JsonNode | undefined, path: string, bits: 32 | 64): bigint {
  if (node === undefined || node.kind === 'null') return 0n
  if (node.kind !== 'number') fieldFail(path, `expected an unsigned ${bits}-bit integer, got ${kind(node)}`)
  if (!/^(0|[1-9][0-9]*)$/.test(node.raw) || BigInt(node.raw) >= 1n << BigInt(bits)) {
    fieldFail(path, `expected an unsigned ${bits}-bit integer, got ${node.raw}`)
  }
  return BigInt(node.raw)
}

export function stringField(node: JsonNode | undefined, path: string): string {
  if (node === undefined || node.kind === 'null') return ''
  if (node.kind !== 'string') fieldFail(path, `expected a string, got ${kind(node)}`)
  return node.value
}

export function arrayField(node: JsonNode | undefined, path: string): JsonNode[] {
  if (node === undefined || node.kind === 'null') return []
  if (node.kind !== 'array') fieldFail(path, `expected an array, got ${kind(node)}`)
  return node.items
}

/** The node as a plain JSON value (numbers become JavaScript numbers: a VM reads large integers from strings). */
export function toPlain(node: JsonNode, path: string): unknown {
  switch (node.kind) {
    case 'null':
      return null
    case 'bool':
    case 'string':
      return node.value
    case 'number': {
      const n = Number(node.raw)
      if (!Number.isFinite(n)) fieldFail(path, `the number ${node.raw} is out of range (write it as a string)`)
      return n
    }
    case 'array':
      return node.items.map((item, i) => toPlain(item, `${path}[${i}]`))
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [key, value] of node.members) {
        // a later duplicate wins, as in JSON.parse; defineProperty keeps a `__proto__` member an ordinary one
        const plain = toPlain(value, fieldPath(path, key))
        Object.defineProperty(out, key, { value: plain, enumerable: true, writable: true, configurable: true })
      }
      return out
    }
  }
}
