/**
 * A small JSON reader that keeps what Go's encoding/json needs for its messages: the raw text of numbers (so
 * `1.5` into an int reads `cannot unmarshal number 1.5`) and Go's syntax-error wording. Values are a tree of
 * nodes; objects keep every member in order (later duplicates win when decoded, as in Go).
 */

export type JsonNode =
  | { kind: 'null' }
  | { kind: 'bool'; value: boolean }
  | { kind: 'number'; raw: string }
  | { kind: 'string'; value: string }
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'object'; members: [string, JsonNode][] }

/** Go's `json.SyntaxError` text. */
export class GoJsonSyntaxError extends Error {}

function quoteChar(c: string): string {
  if (c === "'") return `'\\''`
  if (c === '"') return `'"'`
  return `'${JSON.stringify(c).slice(1, -1)}'`
}

const MAX_DEPTH = 10_000
const DIGIT = /[0-9]/

export function parseGoJson(text: string): JsonNode {
  let i = 0
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++
  }
  const fail = (context: string): never => {
    if (i >= text.length) throw new GoJsonSyntaxError('unexpected end of JSON input')
    throw new GoJsonSyntaxError(`invalid character ${quoteChar(String.fromCodePoint(text.codePointAt(i)!))} ${context}`)
  }
  const digits = () => {
    while (DIGIT.test(text[i] ?? '')) i++
  }
  const literal = (word: string, node: JsonNode): JsonNode => {
    for (let k = 0; k < word.length; k++, i++) {
      if (text[i] !== word[k]) fail(`in literal ${word} (expecting ${quoteChar(word[k]!)})`)
    }
    return node
  }
  const str = (): string => {
    const start = i++
    while (i < text.length) {
      const c = text[i]!
      if (c === '"') {
        i++
        return JSON.parse(text.slice(start, i)) as string
      }
      if (c === '\\') {
        i++
        const e = text[i]
        if (e === undefined) break
        if (e === 'u') {
          i++
          for (let n = 0; n < 4; n++, i++) {
            if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail('in \\u hexadecimal character escape')
          }
          continue
        }
        if (!'"\\/bfnrt'.includes(e)) fail('in string escape code')
        i++
        continue
      }
      if (c < ' ') fail('in string literal')
      i++
    }
    throw new GoJsonSyntaxError('unexpected end of JSON input')
  }
  const num = (): JsonNode => {
    const start = i
    if (text[i] === '-') i++
    if (text[i] === '0') i++
    else if (/[1-9]/.test(text[i] ?? '')) digits()
    else fail('in numeric literal')
    if (text[i] === '.') {
      i++
      if (!DIGIT.test(text[i] ?? '')) fail('after decimal point in numeric literal')
      digits()
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++
      if (text[i] === '+' || text[i] === '-') i++
      if (!DIGIT.test(text[i] ?? '')) fail('in exponent of numeric literal')
      digits()
    }
    return { kind: 'number', raw: text.slice(start, i) }
  }
  const object = (depth: number): JsonNode => {
    i++
    const members: [string, JsonNode][] = []
    ws()
    if (text[i] === '}') {
      i++
      return { kind: 'object', members }
    }
    for (;;) {
      ws()
      if (text[i] !== '"') fail('looking for beginning of object key string')
      const key = str()
      ws()
      if (text[i] !== ':') fail('after object key')
      i++
      members.push([key, value(depth + 1)])
      ws()
      if (text[i] === ',') {
        i++
        continue
      }
      if (text[i] === '}') {
        i++
        return { kind: 'object', members }
      }
      fail('after object key:value pair')
    }
  }
  const array = (depth: number): JsonNode => {
    i++
    const items: JsonNode[] = []
    ws()
    if (text[i] === ']') {
      i++
      return { kind: 'array', items }
    }
    for (;;) {
      items.push(value(depth + 1))
      ws()
      if (text[i] === ',') {
        i++
        continue
      }
      if (text[i] === ']') {
        i++
        return { kind: 'array', items }
      }
      fail('after array element')
    }
  }
  const value = (depth: number): JsonNode => {
    if (depth > MAX_DEPTH) throw new GoJsonSyntaxError('exceeded max depth')
    ws()
    const c = text[i]
    if (c === '{') return object(depth)
    if (c === '[') return array(depth)
    if (c === '"') return { kind: 'string', value: str() }
    if (c === 't') return literal('true', { kind: 'bool', value: true })
    if (c === 'f') return literal('false', { kind: 'bool', value: false })
    if (c === 'n') return literal('null', { kind: 'null' })
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return num()
    return fail('looking for beginning of value')
  }
  const root = value(0)
  ws()
  if (i < text.length) fail('after top-level value')
  return root
}
