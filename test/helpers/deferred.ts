/** A promise with its resolver outside, for tests that release a blocked handler by hand. */
export interface Deferred {
  promise: Promise<void>
  resolve: () => void
}

export function deferred(): Deferred {
  let resolve!: () => void
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  return { promise, resolve }
}
