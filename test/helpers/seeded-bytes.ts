/** Random-looking bytes from a seed (xorshift32): the same bytes for the same seed, for tests of random shapes. */
export function seededBytes(seed: number): (n: number) => Uint8Array {
  let x = seed
  return (n) => {
    const out = new Uint8Array(n)
    for (let i = 0; i < n; i++) {
      x ^= x << 13
      x ^= x >>> 17
      x ^= x << 5
      out[i] = x & 255
    }
    return out
  }
}
