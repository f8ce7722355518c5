#!/usr/bin/env node
// Launcher for the `firn` command: runs the TypeScript entry point through tsx's loader.
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tsx = import.meta.resolve('tsx')
const child = spawn(process.execPath, ['--import', tsx, join(root, 'src/bin/firn.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: process.cwd(),
})
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
