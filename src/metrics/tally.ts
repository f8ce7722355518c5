/**
 * Metrics counted on a hot path in plain numbers and handed to prom-client only when the registry is scraped.
 *
 * prom-client hashes a child's label values on every `inc`/`observe` (about 0.3 us for a histogram, 0.1 us for a
 * gauge): on a route answering 40,000 requests a second with six such updates per request that was a quarter of
 * the HTTP throughput (issue 11's before/after run). Here a series is a small object found once, by its label
 * values, and updated with a few arithmetic operations; the registry reads the totals at scrape time.
 *
 * - `TallyHistogram` is a prom-client metric of its own (`registerMetric`): `get()` returns the exposition a
 *   prom-client `Histogram` returns (cumulative `_bucket{le}` ending with `+Inf`, `_sum`, `_count`).
 * - `Tally` is a set of plain numbers per label value; `tallyCollect` turns a prom-client Counter or Gauge's
 *   `collect` hook into a read of them.
 */
import type { Counter, Gauge, MetricValueWithName, Registry } from 'prom-client'

export interface HistogramSeries {
  observe(value: number): void
}

class Series implements HistogramSeries {
  readonly counts: Float64Array
  sum = 0
  count = 0
  constructor(
    readonly labels: Readonly<Record<string, string>>,
    readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length)
  }

  observe(value: number): void {
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && value > bounds[i]!) i++
    // a value above every bound only counts in +Inf (= count)
    if (i < bounds.length) this.counts[i]! += 1
    this.sum += value
    this.count += 1
  }
}

export class TallyHistogram<L extends string> {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  readonly #series = new Map<string, Series>()
  readonly #bounds: readonly number[]

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
    buckets: readonly number[],
    registry: Registry,
  ) {
    this.#bounds = [...buckets].sort((a, b) => a - b)
    registry.registerMetric(this as never)
  }

  /** The series of these label values (in `labelNames` order); look it up once, observe it often. */
  series(...values: string[]): HistogramSeries {
    const key = values.join('\u0000')
    let s = this.#series.get(key)
    if (s === undefined) {
      const labels: Record<string, string> = {}
      this.labelNames.forEach((name, i) => {
        labels[name] = values[i] ?? ''
      })
      s = new Series(labels, this.#bounds)
      this.#series.set(key, s)
    }
    return s
  }

  /** what prom-client's registry reads of a metric when it is scraped */
  get(): { name: string; help: string; type: 'histogram'; values: MetricValueWithName<string>[]; aggregator: 'sum' } {
    const values: MetricValueWithName<string>[] = []
    for (const s of this.#series.values()) {
      let acc = 0
      this.#bounds.forEach((le, i) => {
        acc += s.counts[i]!
        values.push({ labels: { le, ...s.labels }, value: acc, metricName: `${this.name}_bucket` })
      })
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${this.name}_bucket` })
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` })
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' }
  }

  reset(): void {
    this.#series.clear()
  }
}

/** Plain counters per label value: `at(value)` once, then add to its fields on the hot path. */
export class Tally<F extends string> {
  readonly #rows = new Map<string, Record<F, number>>()
  constructor(readonly fields: readonly F[]) {}

  at(labelValue: string): Record<F, number> {
    let row = this.#rows.get(labelValue)
    if (row === undefined) {
      row = Object.fromEntries(this.fields.map((f) => [f, 0])) as Record<F, number>
      this.#rows.set(labelValue, row)
    }
    return row
  }

  rows(): IterableIterator<[string, Record<F, number>]> {
    return this.#rows.entries()
  }
}

/** A Gauge's `collect`: set each label value's field from the tally. */
export function gaugeFrom<F extends string, L extends string>(tally: Tally<F>, field: F, label: L) {
  return function (this: Gauge<L>): void {
    for (const [value, row] of tally.rows()) this.set({ [label]: value } as Record<L, string>, row[field])
  }
}

/** A Counter's `collect`: add what each label value's field grew by since the last scrape. */
export function counterFrom<F extends string, L extends string>(tally: Tally<F>, field: F, label: L) {
  const reported = new Map<string, number>()
  return function (this: Counter<L>): void {
    for (const [value, row] of tally.rows()) {
      const delta = row[field] - (reported.get(value) ?? 0)
      if (delta > 0) this.inc({ [label]: value } as Record<L, string>, delta)
      reported.set(value, row[field])
    }
  }
}
