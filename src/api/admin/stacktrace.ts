/**
 * `admin.stacktrace`: Node has one JavaScript thread, so instead of goroutine stacks Firn writes what a
 * diagnostic report holds (the JS stack of the main thread, the native stack, libuv handles, resource usage)
 * plus the actor tree with each actor's state, to `<profile-dir>/stacktrace.txt` (the directory made as for the
 * profiles). The reference writes it into the process's working directory; Firn never writes there (a node
 * started from a source tree or `/` would litter it or fail), docs/api.md lists the difference.
 */
import { writeFile } from 'node:fs/promises'
import type { ActorLine } from '../../node/actor-tree.js'
import { PROFILE_FILE_MODE, prepareProfileFile } from '../../profiling/files.js'

export const STACKTRACE_FILE_NAME = 'stacktrace.txt'

export async function writeStacktrace(profileDir: string, actors: ActorLine[]): Promise<string> {
  const report = process.report.getReport() as unknown as {
    javascriptStack?: { message?: string; stack?: string[] }
    nativeStack?: { pc: string; symbol: string }[]
    libuv?: { type: string; is_active: boolean; address?: string }[]
  }
  const lines: string[] = []
  lines.push(`firn stacktrace pid=${process.pid} at ${new Date().toISOString()}`, '')
  lines.push('== actors ==')
  for (const a of actors) lines.push(`${a.id}: ${JSON.stringify(a.state)}`)
  lines.push('', '== javascript stack (main thread) ==')
  for (const frame of report.javascriptStack?.stack ?? []) lines.push(frame.trim())
  lines.push('', '== native stack ==')
  for (const f of report.nativeStack ?? []) lines.push(`${f.pc} ${f.symbol}`)
  lines.push('', '== libuv handles ==')
  for (const h of report.libuv ?? [])
    lines.push(`${h.type}${h.is_active ? ' (active)' : ''}${h.address ? ` ${h.address}` : ''}`)
  const path = await prepareProfileFile(profileDir, STACKTRACE_FILE_NAME)
  await writeFile(path, `${lines.join('\n')}\n`, { mode: PROFILE_FILE_MODE })
  return path
}
