/** The fake exponential shared by ACP-176 and ACP-226 (reference/cchain.md 5.5). */

export const U64_MAX = (1n << 64n) - 1n

/**
 * F(m, x, d) ≈ m × e^(x/d), by the EIP-4844 Taylor sum in integers: acc starts at m × d, is added to the output, then
 * becomes acc × x / d / i for i = 1, 2, … until it reaches 0; the result is output / d. Saturates at 2^64−1 as soon as
 * the output reaches d × (2^64−1). d = 0 gives 0. Inputs are u64 values (negative inputs are treated as 0).
 */
export function fakeExponential(m: bigint, x: bigint, d: bigint): bigint {
  if (m <= 0n || d <= 0n) return 0n
  const numerator = x < 0n ? 0n : x
  const maxOutput = d * U64_MAX
  let output = 0n
  let acc = m * d
  for (let i = 1n; acc > 0n; i++) {
    output += acc
    if (output >= maxOutput) return U64_MAX
    acc = (acc * numerator) / d / i
  }
  return output / d
}

/** The smaller bigint (Math.min does not take bigints). */
export function minBig(a: bigint, b: bigint): bigint {
  if (a < b) return a
  return b
}

/** min(a × b, 2^64−1) for u64 a, b. */
export function mulCapped(a: bigint, b: bigint): bigint {
  return minBig(a * b, U64_MAX)
}

/** The smallest x in [0, limit) with pred(x) true (limit if none), pred being monotone: Go's sort.Search. */
export function searchSmallest(limit: bigint, pred: (x: bigint) => boolean): bigint {
  let lo = 0n
  let hi = limit
  while (lo < hi) {
    const mid = (lo + hi) >> 1n
    if (pred(mid)) hi = mid
    else lo = mid + 1n
  }
  return lo
}
