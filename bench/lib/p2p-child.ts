/**
 * Child processes for the p2p bench: spawn a TypeScript script under tsx, read its JSON lines from stdout, wait
 * for one carrying a given key, and stop it (SIGTERM, SIGKILL after a deadline).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

const TSX = import.meta.resolve('tsx')

export interface Child {
  proc: ChildProcess
  /** the next line with `key` (or a line with `error`, which rejects), within `timeoutMs` */
  next<T>(key: string, timeoutMs: number): Promise<T>
  stop(): Promise<void>
}

export function spawnScript(script: string, args: string[], nodeFlags: string[] = []): Child {
  const proc = spawn(process.execPath, [...nodeFlags, '--import', TSX, script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: Record<string, unknown>[] = []
  let stderr = ''
  let wake: () => void = () => {}
  let exited = false
  proc.stderr?.on('data', (d) => {
    stderr = (stderr + String(d)).slice(-4000)
  })
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>)
    } catch {
      return
    }
    wake()
  })
  const exit = new Promise<void>((resolve) =>
    proc.once('exit', () => {
      exited = true
      wake()
      resolve()
    }),
  )
  return {
    proc,
    async next<T>(key: string, timeoutMs: number): Promise<T> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const i = lines.findIndex((l) => key in l || 'error' in l)
        if (i >= 0) {
          const [line] = lines.splice(i, 1) as [Record<string, unknown>]
          if ('error' in line) throw new Error(`${script}: ${String(line.error)}`)
          return line[key] as T
        }
        if (exited) throw new Error(`${script} exited (${proc.exitCode}) before "${key}"; stderr:\n${stderr}`)
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`${script}: no "${key}" within ${timeoutMs} ms; stderr:\n${stderr}`)
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left)
          wake = () => {
            clearTimeout(t)
            resolve()
          }
        })
      }
    },
    async stop(): Promise<void> {
      if (exited || proc.exitCode !== null || proc.signalCode !== null) return
      proc.kill('SIGTERM')
      const t = setTimeout(() => proc.kill('SIGKILL'), 15_000)
      await exit
      clearTimeout(t)
    },
  }
}
