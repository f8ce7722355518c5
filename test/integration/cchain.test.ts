/**
 * The C chain end to end: a real `firn --dev` process driven by ethers and viem over HTTP and WebSocket, with a
 * chain config file, Solidity contracts compiled by solc, proofs checked against the block's state root, traces,
 * the keystore, the chain admin API, and a SIGKILL in the middle of a run.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createMPTFromProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { hexToBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { type Contract, ContractFactory, JsonRpcProvider, parseEther, Wallet } from 'ethers'
import { createPublicClient, defineChain, http, parseAbiItem, webSocket } from 'viem'
import { EWOQ_ADDRESS, EWOQ_PRIVATE_KEY } from '../../src/chains/evm/rules/presets.js'
import { type FirnProcess, runFirnToExit, startFirn } from '../helpers/firn-process.js'
import { compile } from '../helpers/solc.js'

const LOCAL_C = '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC'

async function writeChainConfig(dataDir: string, config: Record<string, unknown>): Promise<void> {
  const dir = join(dataDir, 'configs', 'chains', 'C')
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'config.json'), JSON.stringify(config))
}

async function devNode(config: Record<string, unknown>, dataDir?: string): Promise<FirnProcess> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'firn-cchain-')))
  await writeChainConfig(dir, config)
  return startFirn({ args: ['--dev'], dataDir: dir })
}

const rawPost = async (url: string, body: unknown) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return (await res.json()) as unknown
}

describe('C chain on a dev node', () => {
  let node: FirnProcess
  let rpcUrl = ''
  let provider: JsonRpcProvider
  let ewoq: Wallet
  const firnLocal = defineChain({
    id: 43112,
    name: 'firn-local',
    nativeCurrency: { name: 'AVAX', symbol: 'AVAX', decimals: 18 },
    rpcUrls: { default: { http: ['http://127.0.0.1'] } },
  })

  before(async () => {
    node = await devNode({
      'batch-request-limit': 40,
      'admin-api-enabled': true,
      'eth-apis': [
        'eth',
        'eth-filter',
        'net',
        'web3',
        'internal-eth',
        'internal-blockchain',
        'internal-transaction',
        'internal-tx-pool',
        'internal-personal',
        'debug-tracer',
      ],
      'keystore-insecure-unlock-allowed': true,
    })
    rpcUrl = `${node.url}/ext/bc/C/rpc`
    provider = new JsonRpcProvider(rpcUrl, 43112, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 })
    provider.pollingInterval = 50
    ewoq = new Wallet(EWOQ_PRIVATE_KEY, provider)
  })
  after(async () => {
    provider?.destroy()
    await node?.cleanup()
  })

  it('identity: chain id, net_version, client version, bootstrapped, blockchain id', async () => {
    assert.equal((await provider.getNetwork()).chainId, 43112n)
    assert.equal(await provider.send('net_version', []), '43112')
    assert.match(await provider.send('web3_clientVersion', []), /^v\d+\.\d+\.\d+/)
    const boot = await node.rpc('/ext/info', 'info.isBootstrapped', { chain: 'C' })
    assert.deepEqual(boot.body.result, { isBootstrapped: true })
    const id = await node.rpc('/ext/info', 'info.getBlockchainID', { alias: 'C' })
    assert.deepEqual(id.body.result, { blockchainID: LOCAL_C })
    // the same endpoint by chain ID
    const viaId = (await rawPost(`${node.url}/ext/bc/${LOCAL_C}/rpc`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_chainId',
    })) as { result: string }
    assert.equal(viaId.result, '0xa868')
  })

  it('the funded account has 50,000,000 AVAX at genesis', async () => {
    assert.equal(await provider.getBalance(EWOQ_ADDRESS, 0), parseEther('50000000'))
  })

  it('legacy and EIP-1559 transfers are mined within milliseconds, with the Avalanche block fields', async () => {
    const to = Wallet.createRandom().address
    const legacy = await ewoq.sendTransaction({ to, value: 1000n, type: 0, gasPrice: 300_000_000_000n })
    const r1 = await legacy.wait()
    assert.equal(r1?.status, 1)
    const dyn = await ewoq.sendTransaction({ to, value: 2000n })
    const r2 = await dyn.wait()
    assert.equal(r2?.status, 1)
    assert.equal(await provider.getBalance(to), 3000n)
    const block = (await provider.send('eth_getBlockByNumber', [`0x${r2!.blockNumber.toString(16)}`, false])) as Record<
      string,
      string
    >
    assert.equal(block.totalDifficulty, block.number)
    assert.equal(block.miner, '0x0100000000000000000000000000000000000000')
    for (const key of [
      'extDataHash',
      'extDataGasUsed',
      'blockGasCost',
      'blockExtraData',
      'timestampMilliseconds',
      'minDelayExcess',
      'baseFeePerGas',
    ]) {
      assert.ok(key in block, `block JSON has ${key}`)
    }
  })

  describe('a Solidity contract', () => {
    const counter = compile('Counter')
    let contract: Contract
    let address = ''
    let incrementTx = ''

    before(async () => {
      const factory = new ContractFactory(counter.abi as never, counter.bytecode, ewoq)
      contract = (await factory.deploy(5n)) as Contract
      await contract.waitForDeployment()
      address = await contract.getAddress()
    })

    it('deploys, keeps storage and emits events', async () => {
      assert.equal(await contract.getFunction('count')(), 5n)
      const tx = await contract.getFunction('increment')('hello')
      const receipt = await tx.wait()
      incrementTx = tx.hash
      assert.equal(receipt.logs.length, 1)
      assert.equal(await contract.getFunction('count')(), 6n)
      const [prevrandao, coinbase, chainId] = await contract.getFunction('blockInfo')()
      assert.equal(prevrandao, 1n)
      assert.equal(coinbase, '0x0100000000000000000000000000000000000000')
      assert.equal(chainId, 43112n)
    })

    it('revert reasons and custom errors reach ethers and viem', async () => {
      await assert.rejects(contract.getFunction('failWithReason').staticCall(), (err: { reason?: string }) => {
        assert.equal(err.reason, 'counter: always fails')
        return true
      })
      const raw = (await rawPost(rpcUrl, {
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [{ to: address, data: contract.interface.encodeFunctionData('failWithReason') }, 'latest'],
      })) as { error: { code: number; message: string; data: string } }
      assert.equal(raw.error.code, 3)
      assert.equal(raw.error.message, 'execution reverted: counter: always fails')
      const stranger = Wallet.createRandom().connect(provider)
      await (await ewoq.sendTransaction({ to: stranger.address, value: parseEther('1') })).wait()
      const asStranger = contract.connect(stranger) as Contract
      await assert.rejects(
        asStranger.getFunction('onlyOwnerReset').staticCall(),
        (err: { revert?: { name: string } }) => {
          assert.equal(err.revert?.name, 'NotOwner')
          return true
        },
      )
      const client = createPublicClient({ chain: firnLocal, transport: http(rpcUrl) })
      await assert.rejects(
        client.simulateContract({
          address: address as `0x${string}`,
          abi: counter.abi as never,
          functionName: 'onlyOwnerReset',
          account: stranger.address as `0x${string}`,
        }),
        /NotOwner/,
      )
    })

    it('estimateGas gives enough gas for the call', async () => {
      const gas = await contract.getFunction('increment').estimateGas('estimate')
      const tx = await contract.getFunction('increment')('estimate', { gasLimit: gas })
      assert.equal((await tx.wait()).status, 1)
      assert.equal(
        await provider.estimateGas({ from: EWOQ_ADDRESS, to: Wallet.createRandom().address, value: 1n }),
        21_000n,
      )
    })

    it('getLogs by topic and polled filters', async () => {
      const topic = contract.interface.getEvent('Incremented')!.topicHash
      const byTopic = await provider.getLogs({ fromBlock: 0, toBlock: 'latest', topics: [topic] })
      assert.ok(byTopic.length >= 2)
      assert.ok(byTopic.every((l) => l.address === address))
      const filterId = (await provider.send('eth_newFilter', [{ address, topics: [topic] }])) as string
      await (await contract.getFunction('increment')('filtered')).wait()
      const changes = (await provider.send('eth_getFilterChanges', [filterId])) as { topics: string[] }[]
      assert.equal(changes.length, 1)
      assert.equal(changes[0]!.topics[0], topic)
      assert.equal(await provider.send('eth_uninstallFilter', [filterId]), true)
    })

    it('newHeads and logs subscriptions over WebSocket (viem)', async () => {
      const client = createPublicClient({
        chain: firnLocal,
        transport: webSocket(`${node.url.replace('http', 'ws')}/ext/bc/C/ws`),
      })
      try {
        const heads: bigint[] = []
        const logs: unknown[] = []
        const gotHead = new Promise<void>((resolve) => {
          const stop = client.watchBlocks({
            onBlock: (b) => {
              heads.push(b.number)
              stop()
              resolve()
            },
          })
        })
        const gotLog = new Promise<void>((resolve) => {
          const stop = client.watchEvent({
            address: address as `0x${string}`,
            event: parseAbiItem('event Incremented(address indexed by, uint256 indexed newCount, string note)'),
            onLogs: (l) => {
              logs.push(...l)
              stop()
              resolve()
            },
          })
        })
        await new Promise((r) => setTimeout(r, 200))
        await (await contract.getFunction('increment')('over ws')).wait()
        await Promise.all([gotHead, gotLog])
        assert.ok(heads.length >= 1)
        assert.equal(logs.length, 1)
      } finally {
        await client.transport
          .getRpcClient?.()
          .then((c: { close(): void }) => c.close())
          .catch(() => undefined)
      }
    })

    it('eth_getProof verifies against the block state root', async () => {
      const block = await provider.getBlock('latest')
      const proof = (await provider.send('eth_getProof', [address, ['0x0'], `0x${block!.number.toString(16)}`])) as {
        accountProof: string[]
        storageHash: string
        storageProof: { key: string; value: string; proof: string[] }[]
        balance: string
        nonce: string
      }
      const trie = await createMPTFromProof(
        proof.accountProof.map((p) => hexToBytes(p as `0x${string}`)),
        { useKeyHashing: true },
      )
      assert.equal(Buffer.from(trie.root()).toString('hex'), block!.stateRoot!.slice(2))
      const leaf = await trie.get(hexToBytes(address as `0x${string}`))
      assert.ok(leaf)
      const fields = RLP.decode(leaf) as Uint8Array[]
      assert.equal(`0x${Buffer.from(fields[2]!).toString('hex')}`, proof.storageHash)
      const count = await contract.getFunction('count')({ blockTag: block!.number })
      assert.equal(BigInt(proof.storageProof[0]!.value), count)
      assert.equal(Buffer.from(keccak_256(new Uint8Array(0))).length, 32)
    })

    it('debug_traceTransaction with callTracer', async () => {
      const trace = (await provider.send('debug_traceTransaction', [incrementTx, { tracer: 'callTracer' }])) as Record<
        string,
        string
      >
      assert.equal(trace.type, 'CALL')
      assert.equal(trace.to?.toLowerCase(), address.toLowerCase())
      assert.equal(trace.from?.toLowerCase(), EWOQ_ADDRESS)
    })
  })

  it('a batch over batch-request-limit gets one error', async () => {
    const batch = Array.from({ length: 41 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'eth_blockNumber' }))
    const reply = (await rawPost(rpcUrl, batch)) as unknown[]
    assert.deepEqual(reply, [{ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'batch too large' } }])
    const ok = (await rawPost(rpcUrl, batch.slice(0, 40))) as unknown[]
    assert.equal(ok.length, 40)
  })

  it('unknown methods and unfinalized blocks answer with the reference errors', async () => {
    const unknown = (await rawPost(rpcUrl, { jsonrpc: '2.0', id: 1, method: 'eth_nope' })) as { error: unknown }
    assert.deepEqual(unknown.error, { code: -32601, message: 'the method eth_nope does not exist/is not available' })
    const future = (await rawPost(rpcUrl, {
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getBlockByNumber',
      params: ['0xffffff', false],
    })) as { error: unknown }
    assert.deepEqual(future.error, { code: -32000, message: 'cannot query unfinalized data' })
  })

  it('personal_sendTransaction signs with a keystore account', async () => {
    const account = (await provider.send('personal_newAccount', ['correct horse'])) as string
    await (await ewoq.sendTransaction({ to: account, value: parseEther('2') })).wait()
    const to = Wallet.createRandom().address
    const hash = (await provider.send('personal_sendTransaction', [
      { from: account, to, value: '0x64' },
      'correct horse',
    ])) as string
    // ethers' waitForTransaction only looks on new blocks; the response's wait() checks the receipt first
    const receipt = await (await provider.getTransaction(hash))?.wait()
    assert.equal(receipt?.status, 1)
    assert.equal(await provider.getBalance(to), 100n)
    const listed = (await provider.send('personal_listAccounts', [])) as string[]
    assert.ok(listed.map((a) => a.toLowerCase()).includes(account.toLowerCase()))
  })

  it('the chain admin API answers both spellings', async () => {
    const cfg = await node.rpc('/ext/bc/C/admin', 'admin.getVMConfig', {})
    const config = (cfg.body.result as { config: Record<string, unknown> }).config
    assert.equal(config['batch-request-limit'], 40)
    assert.deepEqual((await node.rpc('/ext/bc/C/admin', 'admin_startCPUProfiler', [])).body.result, {})
    assert.deepEqual((await node.rpc('/ext/bc/C/admin', 'admin.stopCPUProfiler', {})).body.result, {})
    const bad = await node.rpc('/ext/bc/C/admin', 'admin.setLogLevel', { level: 'loud' })
    assert.equal(bad.body.error?.message, 'failed to parse log level: unknown level: loud ')
  })
})

describe('C chain config and durability', () => {
  it('an unknown chain config key stops start-up with a clear error', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'firn-cchain-'))
    try {
      await writeChainConfig(dataDir, { 'no-such-key': 1 })
      const { code, output } = await runFirnToExit(['--dev', '--data-dir', dataDir, '--http-port=0'])
      assert.notEqual(code, 0)
      assert.match(output, /no-such-key/)
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })

  it('a node killed with SIGKILL under load restarts with every acknowledged block and receipt', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'firn-cchain-'))
    let node = await devNode({}, dataDir)
    try {
      let provider = new JsonRpcProvider(`${node.url}/ext/bc/C/rpc`, 43112, { staticNetwork: true, cacheTimeout: -1 })
      const wallet = new Wallet(EWOQ_PRIVATE_KEY, provider)
      const to = Wallet.createRandom().address
      // a sender that keeps sending and records every receipt the node acknowledges, until the node dies
      const acknowledged = new Map<string, { blockHash: string; blockNumber: number }>()
      let nonce = await provider.getTransactionCount(EWOQ_ADDRESS, 'pending')
      let dead = false
      const load = (async () => {
        while (!dead) {
          try {
            const tx = await wallet.sendTransaction({ to, value: 1n, nonce, gasLimit: 21_000n })
            nonce++
            const r = await provider.getTransactionReceipt(tx.hash)
            if (r !== null) acknowledged.set(tx.hash, { blockHash: r.blockHash, blockNumber: r.blockNumber })
            else {
              // poll briefly: a dev block follows within milliseconds
              for (let k = 0; k < 50 && !dead; k++) {
                const again = await provider.getTransactionReceipt(tx.hash)
                if (again !== null) {
                  acknowledged.set(tx.hash, { blockHash: again.blockHash, blockNumber: again.blockNumber })
                  break
                }
                await new Promise((resolve) => setTimeout(resolve, 5))
              }
            }
          } catch {
            if (dead) return
          }
        }
      })()
      while (acknowledged.size < 30) await new Promise((resolve) => setTimeout(resolve, 20))
      dead = true
      await node.stop('SIGKILL')
      await load
      provider.destroy()
      node = await startFirn({ args: ['--dev'], dataDir, keepData: true })
      provider = new JsonRpcProvider(`${node.url}/ext/bc/C/rpc`, 43112, { staticNetwork: true, cacheTimeout: -1 })
      provider.pollingInterval = 50
      const height = await provider.getBlockNumber()
      for (const [hash, at] of acknowledged) {
        const r = await provider.getTransactionReceipt(hash)
        assert.ok(r, `receipt of ${hash} acknowledged before the kill`)
        assert.equal(r.blockHash, at.blockHash)
        assert.equal(r.status, 1)
        assert.ok(at.blockNumber <= height)
      }
      assert.ok((await provider.getBalance(to)) >= BigInt(acknowledged.size))
      // every block up to the tip is readable and chained
      let parent: string | undefined
      for (let n = 0; n <= height; n++) {
        const b = await provider.getBlock(n)
        assert.ok(b, `block ${n}`)
        if (parent !== undefined) assert.equal(b.parentHash, parent)
        parent = b.hash!
      }
      // and the chain goes on
      const w2 = new Wallet(EWOQ_PRIVATE_KEY, provider)
      const again = await w2.sendTransaction({
        to,
        value: 1n,
        nonce: await provider.getTransactionCount(EWOQ_ADDRESS, 'pending'),
      })
      assert.equal((await again.wait())?.status, 1)
      provider.destroy()
    } finally {
      await node.stop()
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
