/**
 * /ext/info over HTTP against a real `firn` process: every method, its shapes and encodings, and its errors.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import herumi from 'bls-eth-wasm'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'

const LOCAL_C = '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC'
const LOCAL_X = '2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed'
const P = '11111111111111111111111111111111LpoYY'
const EVM_ID = 'mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6'

describe('/ext/info on a dev node', () => {
  let node: FirnProcess
  before(async () => {
    node = await startFirn({ args: ['--dev', '--staking-port=9751', '--acp-support=23,103', '--acp-object=125'] })
  })
  after(() => node?.cleanup())

  const ok = async (method: string, params?: unknown) => {
    const r = await node.rpc('/ext/info', method, params)
    assert.equal(r.status, 200)
    assert.equal(r.body.error, undefined, `${method}: ${JSON.stringify(r.body.error)}`)
    return r.body.result as Record<string, unknown>
  }
  const err = async (method: string, params: unknown, message: string) => {
    const r = await node.rpc('/ext/info', method, params)
    assert.equal(r.status, 200)
    assert.deepEqual(r.body.error, { code: -32000, message, data: null })
  }

  it('getNodeVersion', async () => {
    const r = await ok('info.getNodeVersion')
    assert.match(r.version as string, /^firn\/\d+\.\d+\.\d+$/)
    assert.equal(typeof r.databaseVersion, 'string')
    assert.match(r.rpcProtocolVersion as string, /^\d+$/)
    assert.equal(typeof r.gitCommit, 'string')
    assert.deepEqual(Object.keys(r.vmVersions as object), ['evm'])
    assert.deepEqual(Object.keys(r), ['version', 'databaseVersion', 'rpcProtocolVersion', 'gitCommit', 'vmVersions'])
  })

  it('getNodeID matches the node-id header', async () => {
    const r = await node.rpc('/ext/info', 'info.getNodeID')
    const result = r.body.result as { nodeID: string; nodePOP: { publicKey: string; proofOfPossession: string } }
    assert.match(result.nodeID, /^NodeID-[1-9A-HJ-NP-Za-km-z]+$/)
    assert.equal(r.headers.get('node-id'), result.nodeID)
    assert.match(result.nodePOP.publicKey, /^0x[0-9a-f]{96}$/)
    assert.match(result.nodePOP.proofOfPossession, /^0x[0-9a-f]{192}$/)

    // An independent BLS implementation (herumi, WASM) checks the proof of possession: a signature over the
    // public key's bytes under the POP ciphersuite, and nothing else.
    await herumi.init(herumi.BLS12_381)
    const publicKey = Buffer.from(result.nodePOP.publicKey.slice(2), 'hex')
    const verify = (dst: string, message: Uint8Array) => {
      ;(herumi as unknown as { setDstG2(dst: string): void }).setDstG2(dst)
      const pk = new herumi.PublicKey()
      pk.deserialize(publicKey)
      const sig = new herumi.Signature()
      sig.deserialize(Buffer.from(result.nodePOP.proofOfPossession.slice(2), 'hex'))
      return pk.verify(sig, message)
    }
    assert.equal(verify('BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_', publicKey), true)
    assert.equal(verify('BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_', publicKey), false)
    assert.equal(verify('BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_', Buffer.from('other')), false)
  })

  it('getNodeIP is the public IP and staking port', async () => {
    assert.deepEqual(await ok('info.getNodeIP'), { ip: '127.0.0.1:9751' })
  })

  it('getNetworkID and getNetworkName', async () => {
    assert.deepEqual(await ok('info.getNetworkID'), { networkID: '12345' })
    assert.deepEqual(await ok('info.getNetworkName'), { networkName: 'local' })
  })

  it('getBlockchainID resolves genesis aliases', async () => {
    assert.deepEqual(await ok('info.getBlockchainID', { alias: 'C' }), { blockchainID: LOCAL_C })
    assert.deepEqual(await ok('info.getBlockchainID', { alias: 'evm' }), { blockchainID: LOCAL_C })
    assert.deepEqual(await ok('info.getBlockchainID', { alias: 'X' }), { blockchainID: LOCAL_X })
    assert.deepEqual(await ok('info.getBlockchainID', { alias: 'P' }), { blockchainID: P })
    assert.deepEqual(await ok('info.getBlockchainID', [{ alias: 'platform' }]), { blockchainID: P })
    await err('info.getBlockchainID', { alias: 'Q' }, 'there is no ID with alias: Q')
  })

  it('isBootstrapped reads the chain actor', async () => {
    assert.deepEqual(await ok('info.isBootstrapped', { chain: 'C' }), { isBootstrapped: true })
    assert.deepEqual(await ok('info.isBootstrapped', { chain: LOCAL_C }), { isBootstrapped: true })
    assert.deepEqual(await ok('info.isBootstrapped', { chain: 'X' }), { isBootstrapped: false })
    await err('info.isBootstrapped', {}, "argument 'chain' not given")
    await err('info.isBootstrapped', { chain: 'nope' }, "there is no chain with alias/ID 'nope'")
    // the raw X chain ID is not an alias until that chain is created here
    await err('info.isBootstrapped', { chain: LOCAL_X }, `there is no chain with alias/ID '${LOCAL_X}'`)
  })

  it('peers is empty with no peers, and filters by nodeIDs', async () => {
    assert.deepEqual(await ok('info.peers'), { numPeers: '0', peers: [] })
    assert.deepEqual(await ok('info.peers', { nodeIDs: ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'] }), {
      numPeers: '0',
      peers: [],
    })
    await err(
      'info.peers',
      { nodeIDs: ['7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'] },
      "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls",
    )
  })

  it('uptime of a lone validator', async () => {
    assert.deepEqual(await ok('info.uptime'), {
      rewardingStakePercentage: '100.0000',
      weightedAveragePercentage: '100.0000',
    })
  })

  it('upgrades is the default schedule', async () => {
    const r = await ok('info.upgrades')
    assert.equal(r.apricotPhase1Time, '2020-12-05T05:00:00Z')
    assert.equal(r.apricotPhase4MinPChainHeight, 0)
    assert.equal(r.cortinaXChainStopVertexID, P)
    assert.equal(r.graniteEpochDuration, 30000000000)
    assert.equal(r.heliconTime, '9999-12-01T00:00:00Z')
    assert.equal(Object.keys(r).length, 18)
  })

  it('getTxFee', async () => {
    assert.deepEqual(await ok('info.getTxFee'), {
      txFee: '1000000',
      createAssetTxFee: '1000000',
      createSubnetTxFee: '100000000',
      transformSubnetTxFee: '100000000',
      createBlockchainTxFee: '100000000',
      addPrimaryNetworkValidatorFee: '0',
      addPrimaryNetworkDelegatorFee: '0',
      addSubnetValidatorFee: '1000000',
      addSubnetDelegatorFee: '1000000',
    })
  })

  it('getVMs lists the EVM', async () => {
    assert.deepEqual(await ok('info.getVMs'), { vms: { [EVM_ID]: ['evm'] }, fxs: {} })
  })

  it("acps tallies this validator's own votes", async () => {
    const { nodeID } = (await ok('info.getNodeID')) as { nodeID: string }
    const r = (await ok('info.acps')) as { acps: Record<string, unknown> }
    assert.deepEqual(r.acps['23'], {
      supportWeight: '100',
      supporters: [nodeID],
      objectWeight: '0',
      objectors: [],
      abstainWeight: '0',
    })
    assert.deepEqual(r.acps['125'], {
      supportWeight: '0',
      supporters: [],
      objectWeight: '100',
      objectors: [nodeID],
      abstainWeight: '0',
    })
  })
})

describe('/ext/info on a local-network node that is not a validator', () => {
  let node: FirnProcess
  before(async () => {
    node = await startFirn({ args: ['--network-id=local', '--db-type=memdb'] })
  })
  after(() => node?.cleanup())

  it('uptime errors, the C chain waits to bootstrap, admin is off', async () => {
    const up = await node.rpc('/ext/info', 'info.uptime')
    assert.deepEqual(up.body.error, {
      code: -32000,
      message: "couldn't get node uptime: node is not a validator",
      data: null,
    })
    const boot = await node.rpc('/ext/info', 'info.isBootstrapped', { chain: 'C' })
    assert.deepEqual(boot.body.result, { isBootstrapped: false })
    const admin = await fetch(`${node.url}/ext/admin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"admin.getConfig"}',
    })
    assert.equal(admin.status, 404)
    assert.equal(await admin.text(), '404 page not found\n')
  })
})
