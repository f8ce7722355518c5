/**
 * Finds the end of the first JSON value in a byte buffer the way Go's `json.Decoder` does, with Go's
 * error texts (`EOF`, `unexpected EOF`, `invalid character 'x' looking for beginning of value` ...).
 * Linear and non-recursive; nesting deeper than Go's 10,000 levels is a syntax error as in Go.
 * For a top-level object it also records where each member's key and value sit, so the request
 * decoder can apply Go's struct rules (case-insensitive keys, last duplicate wins) without a second pass.
 */
import { quoteChar } from './go-text.js'

/** A Go decoder error; `message` is Go's text. */
export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'JsonSyntaxError'
  }
}

export interface ScannedValue {
  /** index of the value's first byte */
  start: number
  /** index just after the value; bytes after it are ignored, as Go's Decoder does */
  end: number
  /** for a top-level object, per member: keyStart, keyEnd, valueStart, valueEnd (keys include quotes) */
  members: number[]
}

const MAX_DEPTH = 10_000
const OBJECT = 1
const ARRAY = 2

const syntax = (c: number, context: string): JsonSyntaxError =>
  new JsonSyntaxError(`invalid character ${quoteChar(c)} ${context}`)
const unexpectedEof = (): JsonSyntaxError => new JsonSyntaxError('unexpected EOF')

const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39
const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)

function skipSpace(buf: Uint8Array, i: number): number {
  const n = buf.length
  while (i < n) {
    const c = buf[i]!
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break
    i++
  }
  return i
}

/** `i` is at the opening quote; returns the index after the closing quote. */
function scanString(buf: Uint8Array, i: number): number {
  const n = buf.length
  let j = i + 1
  for (;;) {
    if (j >= n) throw unexpectedEof()
    const c = buf[j]!
    if (c === 0x22) return j + 1
    if (c === 0x5c) {
      j++
      if (j >= n) throw unexpectedEof()
      const e = buf[j]!
      if (e === 0x75) {
        for (let k = 1; k <= 4; k++) {
          if (j + k >= n) throw unexpectedEof()
          const h = buf[j + k]!
          if (!isHex(h)) throw syntax(h, 'in \\u hexadecimal character escape')
        }
        j += 5
        continue
      }
      // b f n r t \ / "
      if (
        e !== 0x62 &&
        e !== 0x66 &&
        e !== 0x6e &&
        e !== 0x72 &&
        e !== 0x74 &&
        e !== 0x5c &&
        e !== 0x2f &&
        e !== 0x22
      ) {
        throw syntax(e, 'in string escape code')
      }
      j++
      continue
    }
    if (c < 0x20) throw syntax(c, 'in string literal')
    j++
  }
}

function scanDigits(buf: Uint8Array, j: number): number {
  while (isDigit(buf[j])) j++
  return j
}

/** `i` is at '-' or a digit; returns the index after the number. */
function scanNumber(buf: Uint8Array, i: number): number {
  const n = buf.length
  let j = i
  if (buf[j] === 0x2d) {
    j++
    if (j >= n) throw unexpectedEof()
    if (!isDigit(buf[j])) throw syntax(buf[j]!, 'in numeric literal')
  }
  j = buf[j] === 0x30 ? j + 1 : scanDigits(buf, j + 1)
  if (buf[j] === 0x2e) {
    j++
    if (j >= n) throw unexpectedEof()
    if (!isDigit(buf[j])) throw syntax(buf[j]!, 'after decimal point in numeric literal')
    j = scanDigits(buf, j + 1)
  }
  if (buf[j] === 0x65 || buf[j] === 0x45) {
    j++
    if (buf[j] === 0x2b || buf[j] === 0x2d) j++
    if (j >= n) throw unexpectedEof()
    if (!isDigit(buf[j])) throw syntax(buf[j]!, 'in exponent of numeric literal')
    j = scanDigits(buf, j + 1)
  }
  return j
}

function scanLiteral(buf: Uint8Array, i: number, word: string): number {
  for (let k = 1; k < word.length; k++) {
    const j = i + k
    if (j >= buf.length) throw unexpectedEof()
    if (buf[j] !== word.charCodeAt(k)) throw syntax(buf[j]!, `in literal ${word} (expecting '${word[k]}')`)
  }
  return i + word.length
}

/** `i` is where an object key must start; returns the index of the member's value (whitespace skipped). */
function scanKey(buf: Uint8Array, i: number): number {
  if (i >= buf.length) throw unexpectedEof()
  if (buf[i] !== 0x22) throw syntax(buf[i]!, 'looking for beginning of object key string')
  const j = skipSpace(buf, scanString(buf, i))
  if (j >= buf.length) throw unexpectedEof()
  if (buf[j] !== 0x3a) throw syntax(buf[j]!, 'after object key')
  return skipSpace(buf, j + 1)
}

/** Scan the first JSON value of `buf`. Throws `JsonSyntaxError` with Go's text. */
export function scanFirstValue(buf: Uint8Array): ScannedValue {
  const n = buf.length
  let i = skipSpace(buf, 0)
  if (i >= n) throw new JsonSyntaxError('EOF')
  const start = i
  const members: number[] = []
  const stack: number[] = []
  let keyStart = 0
  let valueStart = 0
  for (;;) {
    // a value begins at i
    if (i >= n) throw unexpectedEof()
    const c = buf[i]!
    if (stack.length === 1 && stack[0] === OBJECT) valueStart = i
    switch (c) {
      case 0x7b: // {
      case 0x5b: {
        // [
        if (stack.length >= MAX_DEPTH) throw syntax(c, 'exceeded max depth')
        const kind = c === 0x7b ? OBJECT : ARRAY
        stack.push(kind)
        i = skipSpace(buf, i + 1)
        if (i >= n) throw unexpectedEof()
        if (buf[i] === (kind === OBJECT ? 0x7d : 0x5d)) {
          stack.pop()
          i++
          break
        }
        if (kind === OBJECT) {
          if (stack.length === 1) keyStart = i
          i = scanKey(buf, i)
        }
        continue
      }
      case 0x22:
        i = scanString(buf, i)
        break
      case 0x74:
        i = scanLiteral(buf, i, 'true')
        break
      case 0x66:
        i = scanLiteral(buf, i, 'false')
        break
      case 0x6e:
        i = scanLiteral(buf, i, 'null')
        break
      default:
        if (c === 0x2d || isDigit(c)) i = scanNumber(buf, i)
        else throw syntax(c, 'looking for beginning of value')
    }
    // a value ended at i: close containers until one wants another element
    for (;;) {
      const depth = stack.length
      if (depth === 0) return { start, end: i, members }
      if (depth === 1 && stack[0] === OBJECT) members.push(keyStart, scanString(buf, keyStart), valueStart, i)
      i = skipSpace(buf, i)
      if (i >= n) throw unexpectedEof()
      const d = buf[i]!
      if (stack[depth - 1] === OBJECT) {
        if (d === 0x2c) {
          i = skipSpace(buf, i + 1)
          if (depth === 1) keyStart = i
          i = scanKey(buf, i)
          break
        }
        if (d !== 0x7d) throw syntax(d, 'after object key:value pair')
      } else {
        if (d === 0x2c) {
          i = skipSpace(buf, i + 1)
          break
        }
        if (d !== 0x5d) throw syntax(d, 'after array element')
      }
      stack.pop()
      i++
    }
  }
}
