/**
 * The scale simulation's runner (`make sim`): for each node count, one run of test/sim/scenario.ts, printed as one
 * JSON object. Same arguments, same bytes out: there is no wall clock in the output unless `--timing` asks for it.
 *
 *   node --import tsx test/sim/run.ts [--nodes 5,10,25,50,100] [--blocks 20] [--seed 1] [--latency 5,50]
 *     [--loss 0] [--driver actor|core] [--block-bytes 2589] [--interval 1000] [--timeout 2000] [--timing]
 */
import { parseArgs } from 'node:util'
import type { DriverKind } from './engine-driver.js'
import { DEFAULT_SCENARIO, runScenario, type ScenarioConfig } from './scenario.js'

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '5,10,25,50,100' },
    blocks: { type: 'string', default: String(DEFAULT_SCENARIO.blocks) },
    seed: { type: 'string', default: String(DEFAULT_SCENARIO.seed) },
    latency: { type: 'string', default: DEFAULT_SCENARIO.latencyMs.join(',') },
    loss: { type: 'string', default: String(DEFAULT_SCENARIO.lossRate) },
    driver: { type: 'string', default: DEFAULT_SCENARIO.driver },
    'block-bytes': { type: 'string', default: String(DEFAULT_SCENARIO.containerBytes) },
    interval: { type: 'string', default: String(DEFAULT_SCENARIO.intervalMs) },
    timeout: { type: 'string', default: String(DEFAULT_SCENARIO.requestTimeoutMs) },
    timing: { type: 'boolean', default: false },
  },
  strict: true,
})

function int(name: string, text: string, min: number): number {
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name}: want an integer >= ${min}, got ${text}`)
  return n
}

const nodeCounts = values.nodes.split(',').map((t) => int('nodes', t, 1))
const latency = values.latency.split(',').map((t) => int('latency', t, 0))
const lo = latency[0] ?? 0
const hi = latency[1] ?? lo
if (hi < lo || latency.length > 2) throw new Error('--latency: want LO,HI with LO <= HI')
const loss = Number(values.loss)
if (!(loss >= 0 && loss < 1)) throw new Error(`--loss: want a fraction in [0, 1), got ${values.loss}`)
if (values.driver !== 'actor' && values.driver !== 'core') throw new Error('--driver: actor or core')

const base: Omit<ScenarioConfig, 'nodes'> = {
  ...DEFAULT_SCENARIO,
  blocks: int('blocks', values.blocks, 1),
  seed: int('seed', values.seed, 0),
  latencyMs: [lo, hi],
  lossRate: loss,
  driver: values.driver as DriverKind,
  containerBytes: int('block-bytes', values['block-bytes'], 0),
  intervalMs: int('interval', values.interval, 1),
  requestTimeoutMs: int('timeout', values.timeout, 1),
}

const runs = nodeCounts.map((nodes) => {
  const started = performance.now()
  const { result } = runScenario({ ...base, nodes })
  return values.timing ? { ...result, wallMs: Math.round(performance.now() - started) } : result
})

const { params, maxSimMs: _max, ...model } = base
console.log(JSON.stringify({ model: { ...model, snow: params }, runs }, null, 2))
