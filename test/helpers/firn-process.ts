/**
 * Start a real `firn` process for a test: a temporary data dir, HTTP on 127.0.0.1 port 0, and a handle that
 * waits for the node to serve (its `process.json`), calls JSON-RPC, and stops it (SIGTERM, then SIGKILL after
 * a deadline). Every process started here is stopped by `stop()`; register it with `t.after`.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const ENTRY = join(ROOT, 'src', 'bin', 'firn.ts')
const TSX = import.meta.resolve('tsx')

export interface FirnProcess {
  proc: ChildProcess
  dataDir: string
  url: string
  pid: number
  /** everything the process printed so far */
  output(): string
  rpc(path: string, method: string, params?: unknown): Promise<RpcReply>
  /** SIGTERM and wait for exit; returns the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>
  /** stop and remove the data dir (unless keepData) */
  cleanup(): Promise<void>
}

export interface RpcReply {
  status: number
  body: { jsonrpc: string; id: unknown; result?: unknown; error?: { code: number; message: string; data: unknown } }
  headers: Headers
}

export interface StartOptions {
  args?: string[]
  env?: NodeJS.ProcessEnv
  dataDir?: string
  keepData?: boolean
  /** ms to wait until serving (default 20 s) */
  timeoutMs?: number
  /** the process's working directory (default: the data dir) */
  cwd?: string
  /** 'tsx' (default): the TypeScript entry through tsx; 'firn': the `firn` command (bin/firn.js, the compiled node) */
  launcher?: 'tsx' | 'firn'
}

/** Spawn `firn` with these args; cwd defaults to the repo root (firn writes nothing into its working directory). */
export function runFirn(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd = ROOT,
  launcher: 'tsx' | 'firn' = 'tsx',
): ChildProcess {
  const command = launcher === 'tsx' ? ['--import', TSX, ENTRY] : [join(ROOT, 'bin', 'firn.js')]
  return spawn(process.execPath, [...command, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Run firn to completion (e.g. a bad flag) and collect its exit code and output. */
export async function runFirnToExit(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 20_000) {
  const proc = runFirn(args, env)
  let out = ''
  proc.stdout?.on('data', (d) => {
    out += d
  })
  proc.stderr?.on('data', (d) => {
    out += d
  })
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
  const code = await new Promise<number | null>((resolve) => proc.on('exit', (c) => resolve(c)))
  clearTimeout(timer)
  return { code, output: out }
}

export async function startFirn(opts: StartOptions = {}): Promise<FirnProcess> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'firn-test-')))
  const given = opts.args ?? []
  // port 0 for both servers unless the caller picks: tests and a developer's `make run` never collide
  const picked = given.some((a) => a.startsWith('--staking-port')) || opts.env?.FIRN_STAKING_PORT !== undefined
  const stakingPort = picked ? [] : ['--staking-port=0']
  const args = ['--data-dir', dataDir, '--http-port=0', ...stakingPort, ...given]
  const proc = runFirn(args, opts.env, opts.cwd ?? dataDir, opts.launcher)
  let out = ''
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)))
  const serving = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString()
      if (out.includes('node is serving')) resolve()
    }
    proc.stdout?.on('data', onData)
    proc.stderr?.on('data', (d: Buffer) => {
      out += d.toString()
    })
    void exited.then((code) => reject(new Error(`firn exited with ${code} before serving:\n${out}`)))
  })
  const timeoutMs = opts.timeoutMs ?? 20_000
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`firn did not serve within ${timeoutMs} ms:\n${out}`)), timeoutMs)
  })
  try {
    await Promise.race([serving, deadline])
  } catch (err) {
    proc.kill('SIGKILL')
    await exited
    if (!opts.keepData) await rm(dataDir, { recursive: true, force: true })
    throw err
  } finally {
    clearTimeout(timer)
  }
  const ctx = JSON.parse(await readFile(join(dataDir, 'process.json'), 'utf8')) as { uri: string; pid: number }
  let stopped: Promise<number | null> | undefined
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
    stopped ??= (async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode
      proc.kill(signal)
      const killer = setTimeout(() => proc.kill('SIGKILL'), 15_000)
      const code = await exited
      clearTimeout(killer)
      return code
    })()
    return stopped
  }
  return {
    proc,
    dataDir,
    url: ctx.uri,
    pid: ctx.pid,
    output: () => out,
    rpc: (path, method, params) => rpc(`${ctx.uri}${path}`, method, params),
    stop,
    cleanup: async () => {
      await stop()
      if (!opts.keepData) await rm(dataDir, { recursive: true, force: true })
    },
  }
}

export async function rpc(url: string, method: string, params?: unknown): Promise<RpcReply> {
  const body: Record<string, unknown> = { jsonrpc: '2.0', id: 1, method }
  if (params !== undefined) body.params = params
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? ({} as RpcReply['body']) : JSON.parse(text), headers: res.headers }
}
