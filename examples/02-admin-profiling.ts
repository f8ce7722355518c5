/**
 * Use the admin API of a throwaway dev node: add an API alias, change a logger's level, and take a CPU profile
 * that Chrome DevTools can load (Performance panel -> Load profile). Stops the node when done.
 *
 *   node --import tsx examples/02-admin-profiling.ts
 */
import '../src/runtime/polyfill.js'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startFirn } from '../test/helpers/firn-process.js'

const node = await startFirn({ args: ['--dev'] })
try {
  const call = async (path: string, method: string, params?: unknown) => {
    const reply = await node.rpc(path, method, params)
    if (reply.body.error) throw new Error(`${method}: ${reply.body.error.message}`)
    return reply.body.result
  }
  await call('/ext/admin', 'admin.alias', { endpoint: 'info', alias: 'myinfo' })
  console.log('info through the alias /ext/myinfo:', await call('/ext/myinfo', 'info.getNetworkName'))

  console.log('C logger:', await call('/ext/admin', 'admin.setLoggerLevel', { loggerName: 'C', logLevel: 'debug' }))

  await call('/ext/admin', 'admin.startCPUProfiler')
  for (let i = 0; i < 200; i++) await call('/ext/info', 'info.getNodeVersion')
  await call('/ext/admin', 'admin.stopCPUProfiler')
  const profile = JSON.parse(await readFile(join(node.dataDir, 'profiles', 'cpu.profile'), 'utf8'))
  console.log(`cpu.profile: ${profile.nodes.length} nodes, ${profile.samples.length} samples`)
} finally {
  await node.cleanup()
}
