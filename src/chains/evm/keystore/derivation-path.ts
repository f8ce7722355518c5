/**
 * geth's accounts.ParseDerivationPath (BIP-32 paths, `m/44'/60'/0'/0/1` or relative to m/44'/60'/0'/0) with its
 * error texts; keystore wallets cannot derive, but personal_deriveAccount reports path errors first.
 */

const HARDENED = 0x8000_0000
const MAX_UINT32 = 0xffff_ffff
const DEFAULT_ROOT = [HARDENED + 44, HARDENED + 60, HARDENED + 0, 0]

const DIGITS: Record<number, RegExp> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }

/** Go's big.Int SetString(s, 0): sign, base prefix (0x 0b 0o 0), underscores between digits. */
export function goParseBigInt(s: string): bigint | undefined {
  let i = 0
  let neg = false
  if (s[0] === '+' || s[0] === '-') {
    neg = s[0] === '-'
    i = 1
  }
  const rest = s.slice(i)
  let base = 10
  let prefixed = true
  if (/^0[xX]/.test(rest)) base = 16
  else if (/^0[bB]/.test(rest)) base = 2
  else if (/^0[oO]/.test(rest)) base = 8
  else if (rest[0] === '0' && rest.length > 1) base = 8
  else prefixed = false
  if (prefixed) i += base === 8 && rest[1] !== 'o' && rest[1] !== 'O' ? 1 : 2
  const parts = s.slice(i).split('_')
  const first = parts[0] === '' && prefixed && parts.length > 1 ? 1 : 0
  const digits = parts.slice(first)
  if (digits.length === 0 || digits.some((p) => !DIGITS[base]!.test(p))) return undefined
  const text = digits.join('')
  let value = 0n
  for (const ch of text) value = value * BigInt(base) + BigInt(Number.parseInt(ch, base))
  return neg ? -value : value
}

export function parseDerivationPath(path: string): number[] {
  const result: number[] = []
  let components = path.split('/')
  const head = components[0]!.trim()
  if (head === '')
    throw new Error("ambiguous path: use 'm/' prefix for absolute paths, or no leading '/' for relative ones")
  if (head === 'm') components = components.slice(1)
  else result.push(...DEFAULT_ROOT)
  if (components.length === 0) throw new Error('empty derivation path')
  for (let component of components) {
    component = component.trim()
    let value = 0
    if (component.endsWith("'")) {
      value = HARDENED
      component = component.slice(0, -1).trim()
    }
    const big = goParseBigInt(component)
    if (big === undefined) throw new Error(`invalid component: ${component}`)
    const max = MAX_UINT32 - value
    if (big < 0n || big > BigInt(max)) {
      if (value === 0) throw new Error(`component ${big} out of allowed range [0, ${max}]`)
      throw new Error(`component ${big} out of allowed hardened range [0, ${max}]`)
    }
    result.push(value + Number(big))
  }
  return result
}
