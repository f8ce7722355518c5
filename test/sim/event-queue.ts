/**
 * The simulator's event queue: a binary heap ordered by (time, insertion order), so events at one simulated
 * millisecond run in the order they were scheduled and a run is reproducible.
 */

interface Ev {
  at: number
  seq: number
  run: () => void
}

const less = (a: Ev, b: Ev): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq)

export class EventQueue {
  readonly #heap: Ev[] = []
  #seq = 0

  get size(): number {
    return this.#heap.length
  }

  /** the time of the next event, undefined when none is left */
  peekTime(): number | undefined {
    return this.#heap[0]?.at
  }

  schedule(at: number, run: () => void): void {
    const h = this.#heap
    h.push({ at, seq: this.#seq++, run })
    let i = h.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!less(h[i] as Ev, h[p] as Ev)) break
      ;[h[i], h[p]] = [h[p] as Ev, h[i] as Ev]
      i = p
    }
  }

  /** the earliest event, removed; undefined when none is left */
  pop(): { at: number; run: () => void } | undefined {
    const h = this.#heap
    const top = h[0]
    const last = h.pop()
    if (h.length > 0 && last !== undefined) {
      h[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < h.length && less(h[l] as Ev, h[m] as Ev)) m = l
        if (r < h.length && less(h[r] as Ev, h[m] as Ev)) m = r
        if (m === i) break
        ;[h[i], h[m]] = [h[m] as Ev, h[i] as Ev]
        i = m
      }
    }
    return top
  }
}
