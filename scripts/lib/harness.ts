/**
 * The shared side-by-side harness (../shared/bench-peers, see its README), made ready to run: copied into a work
 * directory outside the repo (../shared is read-only) with its packages installed once, and a fresh `firn --dev`
 * to point it at. Used by scripts/bench-peers.ts and scripts/profile-transfers.ts.
 */
import { spawn, spawnSync } from 'node:child_process'
import { cp, mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type FirnProcess, startFirn } from '../../test/helpers/firn-process.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** the harness (BENCH_PEERS_SRC, default ../shared/bench-peers) */
export const HARNESS_SRC = resolve(ROOT, process.env.BENCH_PEERS_SRC ?? '../shared/bench-peers')
/** where it runs (BENCH_PEERS_WORK, default $TMPDIR/firn-bench-peers) */
export const HARNESS_WORK = process.env.BENCH_PEERS_WORK ?? join(tmpdir(), 'firn-bench-peers')

export const say = (msg: string): void => {
  process.stderr.write(`${msg}\n`)
}

/** Runs a command with inherited output; rejects on a non-zero exit. */
export function run(cmd: string, args: string[], cwd: string): Promise<void> {
  return new Promise((done, fail) => {
    // the child's output goes to stderr: stdout carries only the caller's result
    const p = spawn(cmd, args, { cwd, stdio: ['ignore', 2, 'inherit'] })
    p.on('error', fail)
    p.on('exit', (code) => (code === 0 ? done() : fail(new Error(`${cmd} ${args.join(' ')}: exit ${code}`))))
  })
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  )

/** The harness's files copied fresh into the work directory; its packages installed when its lock changed. */
export async function prepareHarness(): Promise<string> {
  if (!(await exists(join(HARNESS_SRC, 'runall.sh'))))
    throw new Error(`no harness at ${HARNESS_SRC} (set BENCH_PEERS_SRC)`)
  await mkdir(HARNESS_WORK, { recursive: true })
  // its installed packages, compiled contract and raw runs stay
  await cp(HARNESS_SRC, HARNESS_WORK, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|\.run|build)([/\\]|$)/.test(src.slice(HARNESS_SRC.length)),
  })
  const lock = await readFile(join(HARNESS_SRC, 'package-lock.json'), 'utf8')
  const stamp = join(HARNESS_WORK, 'node_modules', '.firn-lock')
  if ((await readFile(stamp, 'utf8').catch(() => '')) !== lock) {
    say(`installing the harness's packages in ${HARNESS_WORK} (once)`)
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], HARNESS_WORK)
    await writeFile(stamp, lock)
  }
  if (spawnSync('wrk', ['--version']).error !== undefined)
    say('wrk is not installed: the harness falls back to autocannon (apt-get install wrk for the reference figures)')
  return HARNESS_WORK
}

/**
 * A fresh `firn --dev` (free port, temporary data directory) started as users start it, by the `firn` command
 * (bin/firn.js: the compiled node); `cleanup()` stops it and removes its data.
 */
export const startDevFirn = (extra: string[] = []): Promise<FirnProcess> =>
  startFirn({
    args: ['--dev', '--log-level=warn', '--log-display-level=info', ...extra],
    timeoutMs: 60_000,
    launcher: 'firn',
  })
