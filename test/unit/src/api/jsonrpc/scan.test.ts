import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { JsonSyntaxError, scanFirstValue } from '../../../../../src/api/jsonrpc/scan.js'

const errorOf = (text: string | Buffer): string => {
  try {
    scanFirstValue(typeof text === 'string' ? Buffer.from(text) : text)
  } catch (err) {
    assert.ok(err instanceof JsonSyntaxError)
    return err.message
  }
  assert.fail(`no error for ${String(text)}`)
}

describe('scanFirstValue: Go decoder error texts', () => {
  const cases: Array<[string, string]> = [
    ['', 'EOF'],
    [' \n\t\r ', 'EOF'],
    ['{', 'unexpected EOF'],
    ['{"jsonrpc":"2.0"', 'unexpected EOF'],
    ['[1,2', 'unexpected EOF'],
    ['"abc', 'unexpected EOF'],
    ['tru', 'unexpected EOF'],
    ['-', 'unexpected EOF'],
    ['1.', 'unexpected EOF'],
    ['1e+', 'unexpected EOF'],
    ['"\\u12', 'unexpected EOF'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{1:2}', "invalid character '1' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['fals0', "invalid character '0' in literal false (expecting 'e')"],
    ['nil', "invalid character 'i' in literal null (expecting 'u')"],
    ['[1.]', "invalid character ']' after decimal point in numeric literal"],
    ['[-]', "invalid character ']' in numeric literal"],
    ['[1e]', "invalid character ']' in exponent of numeric literal"],
    ['[01]', "invalid character '1' after array element"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12G4"', "invalid character 'G' in \\u hexadecimal character escape"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['"a\u0001"', "invalid character '\\x01' in string literal"],
    ['\\', "invalid character '\\\\' looking for beginning of value"],
  ]
  for (const [input, message] of cases) {
    it(`${JSON.stringify(input)} -> ${message}`, () => assert.equal(errorOf(input), message))
  }

  it('quotes a non-ASCII byte as its Latin-1 character (a UTF-8 BOM)', () => {
    assert.equal(
      errorOf(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])),
      "invalid character 'ï' looking for beginning of value",
    )
  })

  it('quotes non-printable high bytes with \\u', () => {
    assert.equal(errorOf(Buffer.from([0x85])), "invalid character '\\u0085' looking for beginning of value")
    assert.equal(errorOf(Buffer.from([0xa0])), "invalid character '\\u00a0' looking for beginning of value")
  })
})

describe('scanFirstValue: extent and members', () => {
  it('stops after the first value and ignores the rest', () => {
    assert.deepEqual(scanFirstValue(Buffer.from('{"a":1}garbage')), { start: 0, end: 7, members: [1, 4, 5, 6] })
    assert.equal(scanFirstValue(Buffer.from('  5xyz')).end, 3)
    assert.equal(scanFirstValue(Buffer.from('true false')).end, 4)
  })

  it('records only the top-level members, through nesting and whitespace', () => {
    const text = '{"a":{"b":[1,{"c":2}]},"d":"e" , "f" : null }'
    const { members } = scanFirstValue(Buffer.from(text))
    const pairs = []
    for (let k = 0; k < members.length; k += 4) {
      pairs.push([text.slice(members[k], members[k + 1]), text.slice(members[k + 2], members[k + 3])])
    }
    assert.deepEqual(pairs, [
      ['"a"', '{"b":[1,{"c":2}]}'],
      ['"d"', '"e"'],
      ['"f"', 'null'],
    ])
  })

  it('accepts 10,000 levels of nesting and rejects the next one without recursion', () => {
    const ok = Buffer.from('['.repeat(10_000) + ']'.repeat(10_000))
    assert.equal(scanFirstValue(ok).end, 20_000)
    assert.equal(errorOf('['.repeat(10_001)), "invalid character '[' exceeded max depth")
    assert.equal(errorOf('{"a":'.repeat(10_001)), "invalid character '{' exceeded max depth")
    assert.equal(errorOf('['.repeat(1_000_000)), "invalid character '[' exceeded max depth")
  })

  it('accepts numbers in all their JSON forms', () => {
    for (const n of ['0', '-0', '12', '-1.5e10', '3.25E-2', '1e+5']) {
      assert.equal(scanFirstValue(Buffer.from(`[${n}]`)).end, n.length + 2, n)
    }
  })
})
