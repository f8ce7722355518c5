/**
 * Counts the calls of a method on `target` (an instance's prototype: every instance's calls) until `restore()`,
 * calling through to the method as it was.
 */
export function countCalls<K extends string>(
  target: Record<K, (...args: never[]) => unknown>,
  name: K,
): { readonly count: number; restore(): void } {
  const original = target[name]
  let count = 0
  target[name] = function (this: unknown, ...args: never[]) {
    count++
    return original.apply(this, args)
  } as Record<K, (...args: never[]) => unknown>[K]
  return {
    get count() {
      return count
    },
    restore() {
      target[name] = original
    },
  }
}
