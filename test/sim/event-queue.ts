/**
 * The simulator's event queue: the project's binary heap (src/chains/evm/txpool/heap.ts) ordered by (time,
 * insertion order), so events at one simulated millisecond run in the order they were scheduled and a run is
 * reproducible.
 */
import { Heap } from '../../src/chains/evm/txpool/heap.js'

interface Ev {
  at: number
  seq: number
  run: () => void
}

export class EventQueue {
  readonly #heap = new Heap<Ev>((a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq))
  #seq = 0

  get size(): number {
    return this.#heap.size
  }

  /** the time of the next event, undefined when none is left */
  peekTime(): number | undefined {
    return this.#heap.peek()?.at
  }

  schedule(at: number, run: () => void): void {
    this.#heap.push({ at, seq: this.#seq++, run })
  }

  /** the earliest event, removed; undefined when none is left */
  pop(): { at: number; run: () => void } | undefined {
    return this.#heap.pop()
  }
}
