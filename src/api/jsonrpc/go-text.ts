/**
 * Text the way Go prints it: `%q` quoting, the JSON scanner's quoted characters, and `encoding/json`'s
 * output escaping (`<`, `>`, `&`, U+2028, U+2029 become `\u003c` ...). Pure string functions.
 */

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u
const HEX = '0123456789abcdef'

/** Go's `unicode.IsPrint` for one code point: letters, marks, numbers, punctuation, symbols and ASCII space. */
function isPrint(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7f
  return PRINTABLE.test(String.fromCodePoint(cp))
}

function hex(n: number, width: number): string {
  let s = ''
  for (let i = width - 1; i >= 0; i--) s += HEX[(n >> (4 * i)) & 0xf]
  return s
}

const CONTROL_ESCAPES: Record<number, string> = {
  7: '\\a',
  8: '\\b',
  12: '\\f',
  10: '\\n',
  13: '\\r',
  9: '\\t',
  11: '\\v',
}

/** One code point as `strconv.Quote` writes it inside the quotes (quote is the delimiter to escape). */
function quoteRune(cp: number, quote: number): string {
  if (cp === quote || cp === 0x5c) return '\\' + String.fromCharCode(cp)
  if (isPrint(cp)) return String.fromCodePoint(cp)
  const esc = CONTROL_ESCAPES[cp]
  if (esc !== undefined) return esc
  if (cp < 0x20 || cp === 0x7f) return '\\x' + hex(cp, 2)
  if (cp < 0x10000) return '\\u' + hex(cp, 4)
  return '\\U' + hex(cp, 8)
}

/** Go's `strconv.Quote` / `%q`. */
export function goQuote(s: string): string {
  let out = '"'
  for (const ch of s) out += quoteRune(ch.codePointAt(0)!, 0x22)
  return out + '"'
}

/** The JSON scanner's `quoteChar(c)` for one input byte (a byte >= 0x80 reads as that Latin-1 code point). */
export function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''"
  if (c === 0x22) return `'"'`
  return "'" + quoteRune(c, 0x22) + "'"
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/
const HTML_UNSAFE_ALL = /[<>&\u2028\u2029]/g
const htmlEscape = (ch: string): string => '\\u' + hex(ch.charCodeAt(0), 4)

/** Apply Go's encoder escaping to JSON text produced by `JSON.stringify` (cheap when nothing needs it). */
export function goEscapeJson(json: string): string {
  return HTML_UNSAFE.test(json) ? json.replace(HTML_UNSAFE_ALL, htmlEscape) : json
}

/** `json.Marshal` of a JS value: `JSON.stringify` plus Go's HTML escaping; `undefined` marshals as `null`. */
export function goJson(value: unknown): string {
  const json = JSON.stringify(value)
  return json === undefined ? 'null' : goEscapeJson(json)
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/**
 * Go's `json.Compact` with HTML escaping over valid JSON text: what `encoding/json` writes for a
 * `json.RawMessage` (the echoed `id` and `params`). Whitespace outside strings goes, `<>&` and
 * U+2028/U+2029 are escaped, everything else is kept as is.
 */
export function compactJson(text: string): string {
  let plain = true
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (isSpace(c) || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) {
      plain = false
      break
    }
  }
  if (plain) return text
  let out = ''
  let inString = false
  let escaped = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) {
      out += '\\u' + hex(c, 4)
      continue
    }
    if (inString) {
      if (escaped) escaped = false
      else if (c === 0x5c) escaped = true
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (isSpace(c)) {
      continue
    }
    out += text[i]
  }
  return out
}
