/**
 * Run more chains on one node: a throwaway `firn --dev` with a genesis file that declares `D`, a second EVM chain
 * (EIP-155 chain ID 99999, its own funded account), and `K`, a chain of the example plugin VM
 * examples/plugins/kvvm.mjs, which is installed only after the node started (`admin.loadVMs`). Drives D with ethers
 * and K with plain JSON-RPC, then stops the node.
 *
 *   node --import tsx examples/07-many-chains.ts
 *
 * The same by hand: write chains.json as below, then
 *   firn --dev --genesis-file=chains.json --plugin-dir=<dir>
 * and link the plugin into <dir> under its VM ID (`kvvm` zero-padded, in CB58):
 *   ln -s "$PWD/examples/plugins/kvvm.mjs" <dir>/pKzWfwFJiwYE8pfXv6iF7r9E8nG68tv8uQuTKUA9Wmv5yUEmM.mjs
 */
import '../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { JsonRpcProvider, parseEther, Wallet } from 'ethers'
import { EWOQ_ADDRESS, EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { idFromAscii, idToString } from '../src/identity/ids.js'
import { startFirn } from '../test/helpers/firn-process.js'

const dir = await mkdtemp(join(tmpdir(), 'firn-example-chains-'))
const genesisFile = join(dir, 'chains.json')
await writeFile(
  genesisFile,
  JSON.stringify({
    chains: [
      {
        name: 'D',
        vm: 'evm',
        genesis: {
          config: { chainId: 99999 },
          gasLimit: '0x7A1200',
          alloc: { [EWOQ_ADDRESS.slice(2)]: { balance: '0xD3C21BCECCEDA1000000' } },
        },
      },
      { name: 'K', vm: 'kvvm', genesis: { greeting: 'hello' } },
    ],
  }),
)
const plugins = join(dir, 'plugins')
await mkdir(plugins)
const node = await startFirn({
  args: ['--dev', `--genesis-file=${genesisFile}`, `--plugin-dir=${plugins}`, '--api-admin-enabled=true'],
})
const post = async (path: string, method: string, params: unknown) => {
  const res = await fetch(`${node.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return { status: res.status, text: await res.text() }
}
try {
  // D: an independent EVM next to C, with its own chain ID and state
  const { text } = await post('/ext/info', 'info.getBlockchainID', { alias: 'D' })
  console.log(`D's blockchain ID: ${JSON.parse(text).result.blockchainID}`)
  const d = new JsonRpcProvider(`${node.url}/ext/bc/D/rpc`, 99999, { staticNetwork: true, cacheTimeout: -1 })
  d.pollingInterval = 50
  const ewoq = new Wallet(EWOQ_PRIVATE_KEY, d)
  const to = Wallet.createRandom().address
  const receipt = await (await ewoq.sendTransaction({ to, value: parseEther('2') })).wait()
  assert.equal(receipt?.status, 1)
  assert.equal(await d.getBalance(to), parseEther('2'))
  console.log(`D: 2 AVAX sent in block ${receipt?.blockNumber}; chain ID ${(await d.getNetwork()).chainId}`)
  d.destroy()

  // K: its VM is not installed yet, so its routes say so
  const waiting = await post('/ext/bc/K/kv', 'kv.get', { key: 'greeting' })
  assert.equal(waiting.status, 503)
  console.log(`K before its VM is installed: ${waiting.status} ${waiting.text.trim()}`)

  // install the plugin under its VM ID and load it: K starts
  const kvvm = join(dirname(fileURLToPath(import.meta.url)), 'plugins', 'kvvm.mjs')
  await symlink(kvvm, join(plugins, `${idToString(idFromAscii('kvvm'))}.mjs`))
  console.log(`admin.loadVMs: ${(await post('/ext/admin', 'admin.loadVMs', {})).text}`)
  let got = await post('/ext/bc/K/kv', 'kv.get', { key: 'greeting' })
  for (let i = 0; got.status !== 200 && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 50))
    got = await post('/ext/bc/K/kv', 'kv.get', { key: 'greeting' })
  }
  assert.equal(JSON.parse(got.text).result.value, 'hello')
  await post('/ext/bc/K/kv', 'kv.put', { key: 'colour', value: 'blue' })
  let colour: string | null = null
  for (let i = 0; colour !== 'blue' && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 20))
    colour = JSON.parse((await post('/ext/bc/K/kv', 'kv.get', { key: 'colour' })).text).result.value
  }
  assert.equal(colour, 'blue')
  console.log('K: genesis value read, a put accepted in a block and read back')
} finally {
  await node.cleanup()
  await rm(dir, { recursive: true, force: true })
}
