/**
 * Start a throwaway dev node, then read its identity, network and versions over /ext/info with plain fetch,
 * the way a script written for the reference node does. Stops the node when done.
 *
 *   node --import tsx examples/01-info.ts
 */
import '../src/runtime/polyfill.js'
import { startFirn } from '../test/helpers/firn-process.js'

const node = await startFirn({ args: ['--dev'] })
try {
  const call = async (method: string, params?: unknown) => {
    const res = await fetch(`${node.url}/ext/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    const body = (await res.json()) as { result?: unknown; error?: { message: string } }
    if (body.error) throw new Error(`${method}: ${body.error.message}`)
    return body.result
  }
  console.log('node ID and proof of possession:', await call('info.getNodeID'))
  console.log('network:', await call('info.getNetworkID'), await call('info.getNetworkName'))
  console.log('version:', await call('info.getNodeVersion'))
  console.log('C chain ID:', await call('info.getBlockchainID', { alias: 'C' }))
  console.log('C bootstrapped:', await call('info.isBootstrapped', { chain: 'C' }))
  console.log('uptime:', await call('info.uptime'))
  console.log('peers:', await call('info.peers'))
} finally {
  await node.cleanup()
}
