/**
 * JSON text of a value within a character budget, for showing actor contexts: the walk stops once the budget is
 * spent (a large context costs the budget, not its size), long arrays and objects are cut with a count of what was
 * left out, and `_` fields, functions, cycles, bigints and bytes are handled as the inspector's `safeJson` does
 * (src/node/inspector.ts). The text is for people to read; it is valid JSON unless it was cut at the budget.
 */

const MAX_ITEMS = 32
const MAX_DEPTH = 8
const MAX_STRING = 200

export function boundedJson(value: unknown, budget: number): string {
  const parts: string[] = []
  let used = 0
  const seen = new WeakSet<object>()
  const put = (s: string): boolean => {
    if (used >= budget) return false
    const room = budget - used
    parts.push(s.length > room ? `${s.slice(0, room)}…` : s)
    used += s.length
    return used < budget
  }
  const walk = (v: unknown, depth: number): boolean => {
    if (v === null || v === undefined) return put('null')
    if (typeof v === 'bigint') return put(JSON.stringify(v.toString()))
    if (typeof v === 'string') {
      return put(JSON.stringify(v.length > MAX_STRING ? `${v.slice(0, MAX_STRING)}… (${v.length} chars)` : v))
    }
    if (typeof v === 'number') return put(Number.isFinite(v) ? String(v) : 'null')
    if (typeof v === 'boolean') return put(String(v))
    if (typeof v !== 'object') return put('null')
    if (v instanceof Uint8Array) {
      const hex = Buffer.from(v.subarray(0, MAX_STRING / 2)).toString('hex')
      return put(JSON.stringify(v.length > MAX_STRING / 2 ? `0x${hex}… (${v.length} bytes)` : `0x${hex}`))
    }
    if (seen.has(v)) return put('"(cycle)"')
    if (depth >= MAX_DEPTH) return put('"…"')
    seen.add(v)
    try {
      if (Array.isArray(v)) {
        if (!put('[')) return false
        const n = Math.min(v.length, MAX_ITEMS)
        for (let i = 0; i < n; i++) {
          if (i > 0 && !put(',')) return false
          if (!walk(v[i], depth + 1)) return false
        }
        if (v.length > n && !put(`,"… ${v.length - n} more"`)) return false
        return put(']')
      }
      const keys = Object.keys(v).filter(
        (k) => !k.startsWith('_') && typeof (v as Record<string, unknown>)[k] !== 'function',
      )
      if (!put('{')) return false
      const n = Math.min(keys.length, MAX_ITEMS)
      for (let i = 0; i < n; i++) {
        const k = keys[i]!
        if (i > 0 && !put(',')) return false
        if (!put(`${JSON.stringify(k)}:`)) return false
        if (!walk((v as Record<string, unknown>)[k], depth + 1)) return false
      }
      if (keys.length > n && !put(`,"…":"${keys.length - n} more keys"`)) return false
      return put('}')
    } finally {
      seen.delete(v)
    }
  }
  walk(value, 0)
  return parts.join('')
}
