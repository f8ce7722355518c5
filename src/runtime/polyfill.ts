/**
 * The runtime's polyfills, in one module. Every entry point (bin, tests, examples, bench, a worker thread's module)
 * imports this module first; nothing else does.
 *
 * - `Promise.withResolvers` (Node 22+), which libp2p 3 calls.
 * - `Uint8Array.prototype.toHex` and `Uint8Array.fromHex` (ES2026; not in Node 20's V8), through Node's native hex
 *   codec. noble's `bytesToHex` / `hexToBytes` use them when both exist (it checks once, when it loads: hence
 *   first), and ethereumjs' hex and bigint conversions go through noble's: without them each byte was a string
 *   concatenation (32 for a hash or a word), ~8 % of what an ERC-20 transfer allocated (docs/performance.md,
 *   "Sixth round"). `fromHex` refuses what noble refuses with noble's own texts (as a SyntaxError, which noble turns
 *   into the RangeError it throws itself), so no error changes.
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

interface HexCodec {
  prototype: { toHex?: (this: Uint8Array) => string }
  fromHex?: (hex: string) => Uint8Array
}
const U8 = Uint8Array as unknown as HexCodec
const HEX = /^[0-9a-fA-F]*$/
if (typeof U8.prototype.toHex !== 'function' && typeof U8.fromHex !== 'function') {
  Object.defineProperty(Uint8Array.prototype, 'toHex', {
    configurable: true,
    writable: true,
    value: function toHex(this: Uint8Array): string {
      return Buffer.from(this.buffer, this.byteOffset, this.byteLength).toString('hex')
    },
  })
  Object.defineProperty(Uint8Array, 'fromHex', {
    configurable: true,
    writable: true,
    value: function fromHex(hex: string): Uint8Array {
      if (typeof hex !== 'string') throw new TypeError('hex string expected, got ' + typeof hex)
      if (hex.length % 2 !== 0) throw new SyntaxError(`hex string expected, got unpadded hex of length ${hex.length}`)
      if (!HEX.test(hex)) {
        let at = 0
        while (HEX.test(hex.slice(at, at + 2))) at += 2
        throw new SyntaxError(`hex string expected, got non-hex character "${hex.slice(at, at + 2)}" at index ${at}`)
      }
      const out = new Uint8Array(hex.length / 2)
      Buffer.from(out.buffer, out.byteOffset, out.byteLength).write(hex, 'hex')
      return out
    },
  })
}

export {}
