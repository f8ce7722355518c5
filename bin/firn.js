#!/usr/bin/env node
// Launcher for the `firn` command: runs the compiled node (bin/build.mjs: built first when missing or older than
// the sources) in this process. When it cannot be built (no esbuild), it runs the TypeScript entry point through
// tsx's loader in a child process, as before there was a build.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ensureBuild, ROOT } from './build.mjs'

let entry
try {
  entry = await ensureBuild()
} catch (err) {
  console.error(`firn: the build failed (${err instanceof Error ? err.message : err}); running the sources through tsx`)
}
if (entry !== undefined) {
  await import(pathToFileURL(entry).href)
} else {
  const tsx = import.meta.resolve('tsx')
  const child = spawn(process.execPath, ['--import', tsx, join(ROOT, 'src/bin/firn.ts'), ...process.argv.slice(2)], {
    stdio: 'inherit',
    cwd: process.cwd(),
  })
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
}
