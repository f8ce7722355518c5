/** A binary min-heap over a comparator (`less(a, b)` true when a comes out first). */
export class Heap<T> {
  readonly #items: T[] = []

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.#items.length
  }

  peek(): T | undefined {
    return this.#items[0]
  }

  push(item: T): void {
    this.#items.push(item)
    this.#up(this.#items.length - 1)
  }

  pop(): T | undefined {
    const items = this.#items
    const top = items[0]
    const last = items.pop()
    if (items.length > 0 && last !== undefined) {
      items[0] = last
      this.#down(0)
    }
    return top
  }

  /** Replaces the top item (cheaper than pop + push). */
  replaceTop(item: T): void {
    if (this.#items.length === 0) {
      this.#items.push(item)
      return
    }
    this.#items[0] = item
    this.#down(0)
  }

  #up(i: number): void {
    const items = this.#items
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.less(items[i]!, items[parent]!)) break
      ;[items[i], items[parent]] = [items[parent]!, items[i]!]
      i = parent
    }
  }

  #down(i: number): void {
    const items = this.#items
    const n = items.length
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let best = i
      if (l < n && this.less(items[l]!, items[best]!)) best = l
      if (r < n && this.less(items[r]!, items[best]!)) best = r
      if (best === i) return
      ;[items[i], items[best]] = [items[best]!, items[i]!]
      i = best
    }
  }
}
