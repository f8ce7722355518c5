/**
 * Many chains on one node: a real `firn --dev` process with a second EVM chain declared in `--genesis-file`
 * (`D`, chain ID 99999, its own alloc), driven by ethers and viem over HTTP and WebSocket on both chains at once;
 * the info and admin APIs list it; a key-value chain (`K`) of the example plugin VM (examples/plugins/kvvm.mjs)
 * answers 503 naming its VM until `admin.loadVMs` installs it, then runs; a SIGKILL while both EVM chains build
 * blocks loses no acknowledged transaction on either, and the plugin chain comes back with its data.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type Contract, ContractFactory, JsonRpcProvider, Wallet, WebSocketProvider } from 'ethers'
import { createPublicClient, defineChain, http, parseAbiItem, webSocket } from 'viem'
import { EWOQ_ADDRESS, EWOQ_PRIVATE_KEY } from '../../src/chains/evm/rules/presets.js'
import { idFromAscii, idToString } from '../../src/identity/ids.js'
import { D_CHAIN_ID, D_FUNDS, devChainsGenesis, writeGenesisFile } from '../helpers/chains-genesis.js'
import { type FirnProcess, runFirnToExit, startFirn } from '../helpers/firn-process.js'
import { post } from '../helpers/five-nodes.js'
import { compile } from '../helpers/solc.js'

const LOCAL_C = '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC'
/** a plugin file is named by its VM ID (or an alias of --vm-aliases-file); kvvm's ID is `kvvm` zero-padded */
const KVVM_ID = idToString(idFromAscii('kvvm'))
const KVVM = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'plugins', 'kvvm.mjs')
/** the key-value chain, declared by its VM's alias before the VM is installed */
const K_CHAIN = { name: 'K', vm: 'kvvm', genesis: { hello: 'world' } }

async function devNodeWithD(dataDir: string): Promise<FirnProcess> {
  const genesisFile = await writeGenesisFile(dataDir, devChainsGenesis([K_CHAIN]))
  const plugins = join(dataDir, 'plugins')
  await mkdir(plugins, { recursive: true })
  return startFirn({
    args: ['--dev', `--genesis-file=${genesisFile}`, `--plugin-dir=${plugins}`, '--api-admin-enabled=true'],
    dataDir,
    keepData: true,
  })
}

const viemChain = (id: number) =>
  defineChain({
    id,
    name: `firn-${id}`,
    nativeCurrency: { name: 'AVAX', symbol: 'AVAX', decimals: 18 },
    rpcUrls: { default: { http: ['http://127.0.0.1'] } },
  })

describe('a dev node with a second EVM chain', () => {
  let dataDir = ''
  let node: FirnProcess
  let dId = ''
  const providers: JsonRpcProvider[] = []
  const provider = (path: string, chainId: number) => {
    const p = new JsonRpcProvider(`${node.url}${path}`, chainId, { staticNetwork: true, cacheTimeout: -1 })
    p.pollingInterval = 50
    providers.push(p)
    return p
  }

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'firn-chains-'))
    node = await devNodeWithD(dataDir)
    const id = await node.rpc('/ext/info', 'info.getBlockchainID', { alias: 'D' })
    dId = (id.body.result as { blockchainID: string }).blockchainID
  })

  after(async () => {
    for (const p of providers) p.destroy()
    await node?.cleanup()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('serves D next to C: its own chain ID and state, at its ID and its name; info and admin list it', async () => {
    assert.match(dId, /^[1-9A-HJ-NP-Za-km-z]{49,50}$/)
    assert.notEqual(dId, LOCAL_C)
    for (const path of ['/ext/bc/D/rpc', `/ext/bc/${dId}/rpc`]) {
      const r = await node.rpc(path, 'eth_chainId', [])
      assert.equal(r.body.result, `0x${D_CHAIN_ID.toString(16)}`, path)
    }
    assert.equal((await node.rpc('/ext/bc/C/rpc', 'eth_chainId', [])).body.result, '0xa868')
    const booted = await node.rpc('/ext/info', 'info.isBootstrapped', { chain: 'D' })
    assert.deepEqual(booted.body.result, { isBootstrapped: true })
    const aliases = await node.rpc('/ext/admin', 'admin.getChainAliases', { chain: dId })
    assert.deepEqual(aliases.body.result, { aliases: ['D', dId] })
    // the genesis alloc is D's alone
    const d = provider('/ext/bc/D/rpc', D_CHAIN_ID)
    assert.equal(await d.getBalance(EWOQ_ADDRESS, 0), D_FUNDS)
    const c = provider('/ext/bc/C/rpc', 43112)
    assert.notEqual(await c.getBalance(EWOQ_ADDRESS, 0), D_FUNDS)
    const dGenesis = await d.getBlock(0)
    const cGenesis = await c.getBlock(0)
    assert.notEqual(dGenesis?.hash, cGenesis?.hash)
    // an unknown endpoint under a running chain is a 404, as anywhere
    const res = await fetch(`${node.url}/ext/bc/D/nothing`, { method: 'POST' })
    assert.equal(res.status, 404)
  })

  it('transfers, a contract, logs and subscriptions on both chains at once (ethers and viem, HTTP and WebSocket)', async () => {
    const counter = compile('Counter')
    const chains = [
      { path: 'C', chainId: 43112 },
      { path: 'D', chainId: D_CHAIN_ID },
    ]
    await Promise.all(
      chains.map(async ({ path, chainId }) => {
        const p = provider(`/ext/bc/${path}/rpc`, chainId)
        const ewoq = new Wallet(EWOQ_PRIVATE_KEY, p)
        const to = Wallet.createRandom().address
        // transfers, back to back
        let nonce = await p.getTransactionCount(EWOQ_ADDRESS, 'pending')
        const sent = []
        for (let i = 0; i < 5; i++) sent.push(await ewoq.sendTransaction({ to, value: 7n, nonce: nonce++ }))
        for (const tx of sent) assert.equal((await tx.wait())?.status, 1)
        assert.equal(await p.getBalance(to), 35n)

        // a contract and its events, watched over WebSocket by ethers and viem while it runs
        const factory = new ContractFactory(counter.abi as never, counter.bytecode, ewoq)
        const contract = (await factory.deploy(1n, { nonce: nonce++ })) as Contract
        await contract.waitForDeployment()
        const address = (await contract.getAddress()) as `0x${string}`
        const [, , seenChainId] = await contract.getFunction('blockInfo')()
        assert.equal(seenChainId, BigInt(chainId))

        const wsUrl = `${node.url.replace('http', 'ws')}/ext/bc/${path}/ws`
        const ethersWs = new WebSocketProvider(wsUrl, chainId, { staticNetwork: true })
        const client = createPublicClient({ chain: viemChain(chainId), transport: webSocket(wsUrl) })
        try {
          const heads = new Promise<number>((resolve) => {
            void ethersWs.once('block', (n: number) => resolve(n))
          })
          const logs = new Promise<unknown[]>((resolve) => {
            const stop = client.watchEvent({
              address,
              event: parseAbiItem('event Incremented(address indexed by, uint256 indexed newCount, string note)'),
              onLogs: (l) => {
                stop()
                resolve(l)
              },
            })
          })
          await new Promise((r) => setTimeout(r, 200))
          const tx = await contract.getFunction('increment')(`on ${path}`, { nonce: nonce++ })
          const receipt = await tx.wait()
          assert.equal(receipt.logs.length, 1)
          assert.ok((await heads) >= 1)
          assert.equal((await logs).length, 1)
          assert.equal(await contract.getFunction('count')(), 2n)
          // the same logs over HTTP (viem)
          const httpClient = createPublicClient({
            chain: viemChain(chainId),
            transport: http(`${node.url}/ext/bc/${path}/rpc`),
          })
          const found = await httpClient.getLogs({ address, fromBlock: 0n, toBlock: 'latest' })
          assert.equal(found.length, 1)
          assert.equal(found[0]?.transactionHash, tx.hash)
        } finally {
          await ethersWs.destroy()
          await client.transport
            .getRpcClient?.()
            .then((c: { close(): void }) => c.close())
            .catch(() => undefined)
        }
        return address
      }),
    )
  })

  it('a chain whose VM is not installed answers 503 naming it, and starts when admin.loadVMs installs it', async () => {
    const waiting = await fetch(`${node.url}/ext/bc/K/kv`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'kv.get', params: { key: 'hello' } }),
    })
    assert.equal(waiting.status, 503)
    assert.match(await waiting.text(), /"kvvm"/)
    const booted = await node.rpc('/ext/info', 'info.isBootstrapped', { chain: 'K' })
    assert.deepEqual(booted.body.result, { isBootstrapped: false })
    const before = await node.rpc('/ext/info', 'info.getVMs', {})
    assert.ok(!JSON.stringify(before.body.result).includes('kvvm'))

    await symlink(KVVM, join(dataDir, 'plugins', `${KVVM_ID}.mjs`))
    const loaded = await node.rpc('/ext/admin', 'admin.loadVMs', {})
    const newVMs = (loaded.body.result as { newVMs: Record<string, string[]> }).newVMs
    assert.deepEqual(Object.values(newVMs), [['kvvm']], JSON.stringify(loaded.body))
    const vms = (await node.rpc('/ext/info', 'info.getVMs', {})).body.result as { vms: Record<string, string[]> }
    assert.deepEqual(vms.vms[Object.keys(newVMs)[0]!], ['kvvm'])

    const kv = (method: string, params: unknown) => node.rpc('/ext/bc/K/kv', method, params)
    for (let i = 0; ; i++) {
      const r = await node.rpc('/ext/info', 'info.isBootstrapped', { chain: 'K' })
      if ((r.body.result as { isBootstrapped: boolean }).isBootstrapped) break
      assert.ok(i < 200, 'K never started')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.deepEqual((await kv('kv.get', { key: 'hello' })).body.result, { value: 'world' })
    const put = await kv('kv.put', { key: 'colour', value: 'blue' })
    assert.match((put.body.result as { id: string }).id, /^0x[0-9a-f]{64}$/)
    for (let i = 0; ; i++) {
      const got = (await kv('kv.get', { key: 'colour' })).body.result as { value: string | null }
      if (got.value === 'blue') break
      assert.ok(i < 200, 'the put was never accepted')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })

  it('a SIGKILL while both chains build blocks loses no acknowledged transaction on either', async () => {
    const to = Wallet.createRandom().address
    const acknowledged = { C: new Map<string, string>(), D: new Map<string, string>() }
    let dead = false
    const load = (['C', 'D'] as const).map(async (alias) => {
      const p = provider(`/ext/bc/${alias}/rpc`, alias === 'C' ? 43112 : D_CHAIN_ID)
      const wallet = new Wallet(EWOQ_PRIVATE_KEY, p)
      let nonce = await p.getTransactionCount(EWOQ_ADDRESS, 'pending')
      while (!dead) {
        try {
          const tx = await wallet.sendTransaction({ to, value: 1n, nonce, gasLimit: 21_000n })
          nonce++
          for (let k = 0; k < 100 && !dead; k++) {
            const r = await p.getTransactionReceipt(tx.hash)
            if (r !== null) {
              acknowledged[alias].set(tx.hash, r.blockHash)
              break
            }
            await new Promise((resolve) => setTimeout(resolve, 5))
          }
        } catch {
          if (dead) return
        }
      }
    })
    while (acknowledged.C.size < 20 || acknowledged.D.size < 20) await new Promise((r) => setTimeout(r, 20))
    dead = true
    await node.stop('SIGKILL')
    await Promise.all(load)
    for (const p of providers.splice(0)) p.destroy()
    node = await devNodeWithD(dataDir)
    for (const alias of ['C', 'D'] as const) {
      const p = provider(`/ext/bc/${alias}/rpc`, alias === 'C' ? 43112 : D_CHAIN_ID)
      for (const [hash, blockHash] of acknowledged[alias]) {
        const r = await p.getTransactionReceipt(hash)
        assert.ok(r, `${alias}: receipt of ${hash} acknowledged before the kill`)
        assert.equal(r.blockHash, blockHash)
        assert.equal(r.status, 1)
      }
      assert.ok((await p.getBalance(to)) >= BigInt(acknowledged[alias].size))
      // and the chain goes on
      const wallet = new Wallet(EWOQ_PRIVATE_KEY, p)
      const again = await wallet.sendTransaction({
        to,
        value: 1n,
        nonce: await p.getTransactionCount(EWOQ_ADDRESS, 'pending'),
      })
      assert.equal((await again.wait())?.status, 1)
    }
    // the plugin VM is loaded at start-up this time, and its chain kept its data
    for (let i = 0; ; i++) {
      const r = await post(`${node.url}/ext/bc/K/kv`, 'kv.get', { key: 'colour' })
      if (r.status === 200) {
        assert.deepEqual(r.result, { value: 'blue' })
        break
      }
      assert.ok(i < 200, `K answered ${r.status} ${r.text} after the restart`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })

  it('a declared chain that cannot open at start-up stops the node with its reason', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'firn-chains-bad-'))
    try {
      const genesisFile = await writeGenesisFile(dir, devChainsGenesis())
      await mkdir(join(dir, 'configs', 'chains', 'D'), { recursive: true })
      await writeFile(join(dir, 'configs', 'chains', 'D', 'config.json'), '{"no-such-key": 1}')
      const run = await runFirnToExit([
        '--dev',
        `--data-dir=${dir}`,
        '--http-port=0',
        '--staking-port=0',
        `--genesis-file=${genesisFile}`,
      ])
      assert.notEqual(run.code, 0)
      assert.match(run.output, /chain D: .*no-such-key/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
