/** Go's `encoding/json` key folding: how JSON object keys match struct fields case-insensitively. */

/**
 * Go's `foldName`: ASCII upper-cased; the two non-ASCII letters that fold onto ASCII ones (KELVIN SIGN,
 * LONG S) become 'K' and 'S'; any other non-ASCII character stays and so never matches an ASCII name.
 */
export function goFoldName(key: string): string {
  let out = ''
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i)
    if (c >= 0x61 && c <= 0x7a) out += String.fromCharCode(c - 0x20)
    else if (c === 0x212a) out += 'K'
    else if (c === 0x17f) out += 'S'
    else out += key[i]
  }
  return out
}
