/**
 * The one runtime polyfill. Node 20 lacks `Promise.withResolvers` (Node 22+), which libp2p 3 calls.
 * Every entry point (bin, tests, examples, bench, a worker thread's module) imports this module first; nothing
 * else does.
 */
interface Resolvers<T> {
  promise: Promise<T>
  resolve: (value: T | PromiseLike<T>) => void
  reject: (reason?: unknown) => void
}

const P = Promise as unknown as { withResolvers?: <T>() => Resolvers<T> }
if (typeof P.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(): Resolvers<T> {
      let resolve!: Resolvers<T>['resolve']
      let reject!: Resolvers<T>['reject']
      const promise = new Promise<T>((res, rej) => {
        resolve = res
        reject = rej
      })
      return { promise, resolve, reject }
    },
  })
}

export {}
