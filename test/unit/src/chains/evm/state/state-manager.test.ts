import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RLP } from '@ethereumjs/rlp'
import { Account, Address, bytesToHex, hexToBytes, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { MemoryLevel } from 'memory-level'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { NodeLayer } from '../../../../../../src/chains/evm/state/node-layer.js'
import { AvaStateManager } from '../../../../../../src/chains/evm/state/state-manager.js'
import { getProof, openStateView } from '../../../../../../src/chains/evm/state/view.js'
import { ChainStore } from '../../../../../../src/chains/evm/store/chain-store.js'

const ADDR = new Address(hexToBytes('0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc'))
const common = createEvmCommon(43112n)

function setup() {
  const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
  const store = new ChainStore(db)
  const layer = new NodeLayer(store.nodes)
  return { db, store, layer, sm: new AvaStateManager(common, layer, undefined) }
}

/** keccak(RLP([compact(leaf, keccak(key)), value])) for a trie holding one key. */
function oneLeafRoot(key: Uint8Array, value: Uint8Array): Uint8Array {
  const path = new Uint8Array(33)
  path[0] = 0x20
  path.set(keccak_256(key), 1)
  return keccak_256(RLP.encode([path, value]))
}

function bigBytes(n: bigint): Uint8Array {
  return n === 0n
    ? new Uint8Array(0)
    : hexToBytes(`0x${n.toString(16).padStart(n.toString(16).length + (n.toString(16).length % 2), '0')}`)
}

describe('AvaStateManager', () => {
  it('gives each getAccount its own Account: a changed copy changes neither the state nor the next read', async () => {
    const { sm } = setup()
    await sm.putAccount(ADDR, new Account(3n, 500n))
    const a = (await sm.getAccount(ADDR))!
    a.balance = 1n
    a.nonce = 9n
    const b = (await sm.getAccount(ADDR))!
    assert.notEqual(a, b)
    assert.deepEqual(
      [b.nonce, b.balance, bytesToHex(b.storageRoot), bytesToHex(b.codeHash)],
      [3n, 500n, bytesToHex(KECCAK256_RLP), bytesToHex(KECCAK256_NULL)],
    )
    await sm.putAccount(ADDR, new Account(4n, 600n))
    const c = (await sm.getAccount(ADDR))!
    assert.deepEqual([c.nonce, c.balance], [4n, 600n], 'a new version is decoded afresh')
    await sm.deleteAccount(ADDR)
    assert.equal(await sm.getAccount(ADDR), undefined)
  })

  it('reads an account as it was put: changing the put object afterwards changes neither reads nor the state', async () => {
    const { sm } = setup()
    const put = new Account(3n, 500n)
    await sm.putAccount(ADDR, put)
    put.balance = 1n
    put.nonce = 9n
    const read = (await sm.getAccount(ADDR))!
    assert.deepEqual([read.nonce, read.balance], [3n, 500n])
    await sm.putAccount(ADDR, new Account(3n, 500n))
    assert.deepEqual([(await sm.getAccount(ADDR))?.nonce, (await sm.getAccount(ADDR))?.balance], [3n, 500n])
    await sm.putAccount(ADDR, undefined)
    assert.equal(await sm.getAccount(ADDR), undefined)
    const root = await sm.getStateRoot()
    await sm.putAccount(ADDR, new Account(3n, 500n))
    assert.notDeepEqual(await sm.getStateRoot(), root)
  })

  it('stores accounts with the 5th field isMultiCoin = false', async () => {
    const { sm } = setup()
    await sm.putAccount(ADDR, new Account(1n, 1000n))
    const root = await sm.getStateRoot()
    const account5 = RLP.encode([bigBytes(1n), bigBytes(1000n), KECCAK256_RLP, KECCAK256_NULL, new Uint8Array(0)])
    assert.equal(bytesToHex(root), bytesToHex(oneLeafRoot(ADDR.bytes, account5)))
    const account4 = RLP.encode([bigBytes(1n), bigBytes(1000n), KECCAK256_RLP, KECCAK256_NULL])
    assert.notEqual(bytesToHex(root), bytesToHex(oneLeafRoot(ADDR.bytes, account4)))
    assert.equal((await sm.getAccount(ADDR))?.balance, 1000n)
  })

  it('clears bit 0 of byte 0 of every storage key: 0x01.. and 0x00.. are one slot', async () => {
    const { sm } = setup()
    await sm.putAccount(ADDR, new Account())
    const raw = new Uint8Array(32)
    raw[0] = 0x01
    raw[31] = 0x05
    const normal = raw.slice()
    normal[0] = 0x00
    await sm.putStorage(ADDR, raw, new Uint8Array([0x2a]))
    assert.deepEqual(await sm.getStorage(ADDR, normal), new Uint8Array([0x2a]))
    assert.deepEqual(await sm.getStorage(ADDR, raw), new Uint8Array([0x2a]))
    await sm.getStateRoot()
    const account = await sm.getAccount(ADDR)
    // the storage trie holds the normalised key
    assert.equal(bytesToHex(account!.storageRoot), bytesToHex(oneLeafRoot(normal, RLP.encode(new Uint8Array([0x2a])))))
  })

  it('proves the raw key path with the normalised key value (eth_getProof)', async () => {
    const { sm, store, layer } = setup()
    await sm.putAccount(ADDR, new Account(0n, 7n))
    const normal = new Uint8Array(32)
    normal[31] = 9
    await sm.putStorage(ADDR, normal, new Uint8Array([0x01, 0x02]))
    const root = await sm.getStateRoot()
    const view = await openStateView(common, store.nodes, root, layer)
    const raw = normal.slice()
    raw[0] = 0x01
    const proof = await getProof(view, ADDR, [raw, normal])
    assert.equal(proof.balance, '0x7')
    assert.equal(proof.storageProof[0]!.key, bytesToHex(raw))
    assert.equal(proof.storageProof[0]!.value, '0x0102')
    assert.equal(proof.storageProof[1]!.value, '0x0102')
    assert.equal(proof.accountProof.length, 1)
    assert.equal(bytesToHex(keccak_256(hexToBytes(proof.accountProof[0]!))), bytesToHex(root))
  })

  it('keeps a writer’s nodes in its layer until accepted; a view at the old root is unaffected', async () => {
    const { sm, store, layer } = setup()
    await sm.putAccount(ADDR, new Account(0n, 1n))
    const root1 = await sm.getStateRoot()
    await store.accept(
      {
        hash: new Uint8Array(32),
        number: 0n,
        rlp: new Uint8Array([0xc0]),
        bloom: new Uint8Array(256),
        txHashes: [],
        receipts: [],
      },
      layer,
    )
    const writerLayer = new NodeLayer(store.nodes)
    const writer = new AvaStateManager(common, writerLayer, root1)
    await writer.modifyAccountFields(ADDR, { balance: 99n })
    const root2 = await writer.getStateRoot()
    assert.ok(writerLayer.writes.size > 0)
    const view = await openStateView(common, store.nodes, root1)
    assert.equal((await view.getAccount(ADDR))?.balance, 1n)
    await assert.rejects(openStateView(common, store.nodes, root2), /missing trie node/)
    const pendingView = await openStateView(common, store.nodes, root2, writerLayer)
    assert.equal((await pendingView.getAccount(ADDR))?.balance, 99n)
  })
})
