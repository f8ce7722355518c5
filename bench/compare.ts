/**
 * Before and after, in one run: each named bench of this checkout and of an earlier commit (checked out in a
 * temporary git worktree that shares this node_modules), run in alternating rounds (before, after, before, ...),
 * every numeric figure of their JSON flattened to a path, the medians of the rounds compared.
 *
 *   node --import tsx bench/compare.ts <git-ref> [bench ...]      e.g. bench/compare.ts 40dc7b3 http exchange
 *
 * Benches are the `bench/<name>.bench.ts` files (default: http exchange cchain consensus). Knobs:
 * BENCH_COMPARE_ROUNDS (3); every other BENCH_* variable reaches both sides alike. Prints one JSON object: per
 * bench, per figure, the before and after medians and after/before. Not a `*.bench.ts` file: `make bench` does not
 * run it (it runs every bench twice per round).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const ROUNDS = Number(process.env.BENCH_COMPARE_ROUNDS ?? 3)
const [ref, ...named] = process.argv.slice(2)
if (ref === undefined) {
  process.stderr.write('usage: node --import tsx bench/compare.ts <git-ref> [bench ...]\n')
  process.exit(2)
}
const benches = named.length > 0 ? named : ['http', 'exchange', 'cchain', 'consensus']

function run(cmd: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], env: process.env })
    let out = ''
    p.stdout.on('data', (d) => {
      out += String(d)
    })
    p.on('error', reject)
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}`))))
  })
}

/** every finite number of a JSON value, by its path */
function flatten(value: unknown, path: string, out: Record<string, number>): void {
  if (typeof value === 'number' && Number.isFinite(value)) out[path] = value
  else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) flatten(v, `${path}[${i}]`, out)
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) flatten(v, path === '' ? k : `${path}.${k}`, out)
  }
}

/** the last line of a bench's stdout that parses as a JSON object */
function lastJson(text: string): unknown {
  const lines = text.trim().split('\n').reverse()
  for (const line of lines) {
    try {
      const v: unknown = JSON.parse(line)
      if (typeof v === 'object' && v !== null) return v
    } catch {}
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new Error(`no JSON in the bench output: ${text.slice(-300)}`)
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

const dir = await mkdtemp(join(tmpdir(), 'firn-before-'))
const before = join(dir, 'checkout')
await run('git', ['worktree', 'add', '--detach', before, ref], ROOT)
await symlink(join(ROOT, 'node_modules'), join(before, 'node_modules'), 'dir')
const result: Record<string, unknown> = { ref, rounds: ROUNDS, benches: {} }
try {
  for (const bench of benches) {
    const samples: Record<'before' | 'after', Record<string, number>[]> = { before: [], after: [] }
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of ['before', 'after'] as const) {
        const cwd = side === 'before' ? before : ROOT
        process.stderr.write(`== ${bench} round ${round + 1} ${side}\n`)
        const out = await run(process.execPath, ['--import', 'tsx', join('bench', `${bench}.bench.ts`)], cwd)
        const flat: Record<string, number> = {}
        flatten(lastJson(out), '', flat)
        samples[side].push(flat)
      }
    }
    const figures: Record<string, { before: number; after: number; ratio: number | null }> = {}
    for (const path of Object.keys(samples.after[0] ?? {})) {
      const a = samples.after.map((s) => s[path]).filter((x): x is number => x !== undefined)
      const b = samples.before.map((s) => s[path]).filter((x): x is number => x !== undefined)
      if (a.length === 0 || b.length === 0) continue
      const ma = median(a)
      const mb = median(b)
      figures[path] = { before: mb, after: ma, ratio: mb === 0 ? null : Math.round((ma / mb) * 1000) / 1000 }
    }
    ;(result.benches as Record<string, unknown>)[bench] = figures
    process.stdout.write(`${JSON.stringify({ bench, figures })}\n`)
  }
} finally {
  await run('git', ['worktree', 'remove', '--force', before], ROOT).catch(() => {})
  await rm(dir, { recursive: true, force: true })
}
process.stdout.write(`${JSON.stringify(result)}\n`)
