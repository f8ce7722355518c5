import '../src/runtime/polyfill.js'
import { hexToBytes } from '@ethereumjs/util'
import { EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { startFirn } from '../test/helpers/firn-process.js'
import { signTransfers } from './lib/cchain-floor.js'
import { push, RpcClient } from './lib/cchain-rpc.js'

const node = await startFirn({ args: ['--dev'] })
try {
  const url = `${node.url}/ext/bc/C/rpc`
  const c = new RpcClient(url, 64)
  const key = hexToBytes(`0x${EWOQ_PRIVATE_KEY}`)
  const txs = signTransfers([key], 2400)
  const lat: number[] = []
  for (const t of txs.slice(0, 400)) {
    const t0 = performance.now()
    await c.call('eth_sendRawTransaction', [t.raw])
    lat.push(performance.now() - t0)
  }
  lat.sort((a, b) => a - b)
  await new Promise((r) => setTimeout(r, 1500))
  const t0 = performance.now()
  await push(c, txs.slice(400), 32)
  const last = txs[txs.length - 1]!
  for (;;) {
    const r = await c.call('eth_getTransactionReceipt', [last.hash])
    if (r) break
    await new Promise((r) => setTimeout(r, 5))
  }
  const ms = performance.now() - t0
  console.log(
    JSON.stringify({
      serialP50: lat[200]!.toFixed(2),
      serialP90: lat[360]!.toFixed(2),
      tps32: Math.round(2000 / (ms / 1000)),
    }),
  )
} finally {
  await node.stop()
}
