import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { counterFrom, gaugeFrom, Tally, TallyHistogram } from '../../../../src/metrics/tally.js'

const BUCKETS = [0.001, 0.01, 0.1, 1]
const VALUES = [0.0005, 0.001, 0.002, 0.05, 0.5, 1, 7, 0.0001]

describe('metrics tally', () => {
  it('a TallyHistogram exposes what a prom-client Histogram exposes for the same observations', async () => {
    const a = new Registry()
    const b = new Registry()
    const tally = new TallyHistogram('h', 'help text', ['endpoint', 'method'], BUCKETS, a)
    const reference = new Histogram({
      name: 'h',
      help: 'help text',
      labelNames: ['endpoint', 'method'],
      buckets: BUCKETS,
      registers: [b],
    })
    const series = tally.series('C/rpc', 'eth_call')
    const other = tally.series('info', 'info.getNodeID')
    for (const v of VALUES) {
      series.observe(v)
      reference.labels('C/rpc', 'eth_call').observe(v)
    }
    other.observe(0.02)
    reference.labels('info', 'info.getNodeID').observe(0.02)
    assert.equal(tally.series('C/rpc', 'eth_call'), series, 'a series is found again by its label values')
    assert.equal(await a.metrics(), await b.metrics())
  })

  it('counters and gauges read their tally when scraped', async () => {
    const registry = new Registry()
    const tally = new Tally(['calls', 'processing'] as const)
    new Counter({
      name: 'calls',
      help: 'c',
      labelNames: ['base'],
      registers: [registry],
      collect: counterFrom(tally, 'calls', 'base'),
    })
    new Gauge({
      name: 'processing',
      help: 'p',
      labelNames: ['base'],
      registers: [registry],
      collect: gaugeFrom(tally, 'processing', 'base'),
    })
    const row = tally.at('info')
    row.calls += 3
    row.processing = 2
    let text = await registry.metrics()
    assert.match(text, /^calls\{base="info"\} 3$/m)
    assert.match(text, /^processing\{base="info"\} 2$/m)
    row.calls += 2
    row.processing = 0
    text = await registry.metrics()
    assert.match(text, /^calls\{base="info"\} 5$/m, 'a counter adds only what grew since the last scrape')
    assert.match(text, /^processing\{base="info"\} 0$/m)
  })
})
