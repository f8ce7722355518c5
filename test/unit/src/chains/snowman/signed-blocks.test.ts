/**
 * Consensus over any chain VM: SignedBlocks (src/chains/snowman/signed-blocks.ts) around a tiny in-test VM that
 * knows nothing of the EVM (test/helpers/tiny-vm.ts), under proposer windows (reference consensus.md 2.2-2.3):
 * only the slot's expected proposer's signed block verifies; a wrong signer or an unsigned block is refused with
 * proposervm's texts; a node that is not the slot's proposer builds nothing; accepted blocks keep their signature
 * (written in the VM's own accept batch) for Get/Ancestors; bootstrapping executes and keeps the signature; a
 * rejected block is forgotten.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { MemoryLevel } from 'memory-level'
import { expectedProposer, slotOf } from '../../../../../actors/consensus/proposer.js'
import {
  decodeSignedBlock,
  encodeSignedBlock,
  signBlock,
  signerOf,
} from '../../../../../src/chains/snowman/signed-block.js'
import { blockIdBytes, SignedBlocks } from '../../../../../src/chains/snowman/signed-blocks.js'
import type { ChainDatabase } from '../../../../../src/chains/vm.js'
import { stakingIdentityFromPem } from '../../../../../src/identity/staking.js'
import { genesisValidators, LOCAL_GENESIS_VALIDATORS } from '../../../../../src/network/validators.js'
import { recordingAppSender } from '../../../../helpers/evm-chain-vm.js'
import { TinyVm } from '../../../../helpers/tiny-vm.js'

const FIXTURES = join(import.meta.dirname, '../../../../fixtures/staking')
const stakers = [1, 2, 3, 4, 5].map((i) =>
  stakingIdentityFromPem(
    readFileSync(join(FIXTURES, `staker${i}.key`), 'utf8'),
    readFileSync(join(FIXTURES, `staker${i}.crt`), 'utf8'),
  ),
)
const validators = genesisValidators(12345)
const chainId = new Uint8Array(32).fill(7)
const identityOf = (nodeId: string) => {
  const s = stakers[LOCAL_GENESIS_VALIDATORS.indexOf(nodeId)]
  if (s === undefined) throw new Error(`no staker ${nodeId}`)
  return s
}
const quiet = { debug() {}, info() {}, warn() {}, error() {} }

describe('SignedBlocks over a tiny VM', () => {
  let clock = 1_700_000_000_000
  const now = () => clock
  const genesisTs = clock - 1_000
  const dbs: MemoryLevel<Uint8Array, Uint8Array>[] = []
  after(async () => {
    for (const db of dbs) await db.close()
  })

  const open = async (nodeId: string, proposers = validators) => {
    const level = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    await level.open()
    dbs.push(level)
    const db = level as unknown as ChainDatabase
    const vm = new TinyVm({ now })
    await vm.initialize({
      networkId: 12345,
      chainId: 'tiny',
      alias: 'T',
      nodeId,
      db,
      dataDir: '',
      log: quiet,
      genesis: { timestampMs: genesisTs },
      config: '',
      dev: false,
      app: recordingAppSender(),
    })
    const blocks = new SignedBlocks({ vm, db, chainId, identity: identityOf(nodeId), proposers: () => proposers, now })
    return { vm, blocks }
  }

  it('accepts only the slot proposer signed block, and keeps its signature once accepted', async () => {
    const proposer = expectedProposer(validators, chainId, 1n, slotOf(genesisTs, clock))
    assert.ok(proposer !== undefined)
    const other = LOCAL_GENESIS_VALIDATORS.find((n) => n !== proposer) as string
    const a = await open(proposer)
    const b = await open(other)
    const c = await open(other)
    assert.deepEqual(a.blocks.lastAccepted(), c.blocks.lastAccepted(), 'the same genesis')

    assert.deepEqual(await c.blocks.build(), { kind: 'empty' }, 'nothing to build')
    a.vm.add('x')
    b.vm.add('x')
    const result = await a.blocks.build()
    assert.ok(result.kind === 'built')
    const built = result.block
    assert.deepEqual(await b.blocks.build(), { kind: 'notMySlot' })
    assert.equal(b.vm.processing.size, 0, 'the block not in my slot is rejected')

    // the container: the VM's bytes, signed over the VM's ID
    const signed = decodeSignedBlock(built.bytes)
    const inner = await a.vm.parseBlock(signed.block)
    assert.equal(inner.id, built.id)
    assert.equal(signerOf(signed, chainId, blockIdBytes(built.id)), proposer)
    const parsed = await c.blocks.parse(built.bytes)
    assert.deepEqual(parsed && [parsed.id, parsed.parentId, parsed.height, parsed.timestampMs, parsed.signer], [
      built.id,
      built.parentId,
      1,
      built.timestampMs,
      proposer,
    ])
    assert.equal(await c.blocks.parse(Uint8Array.from([1, 2, 3])), undefined)

    // the same block signed by another staker, and unsigned: refused with proposervm's texts
    const forged = encodeSignedBlock(signBlock(identityOf(other), chainId, blockIdBytes(built.id), signed.block))
    await assert.rejects(c.blocks.verify({ ...built, bytes: forged }), /proposer mismatch/)
    const empty = new Uint8Array(0)
    const unsigned = encodeSignedBlock({ block: signed.block, certificate: empty, signature: empty })
    await assert.rejects(c.blocks.verify({ ...built, bytes: unsigned }), /expected child to be signed/)

    // the proposer's block verifies and, once accepted, is served with its signature
    await c.blocks.verify(built)
    assert.deepEqual((await c.blocks.container(built.id))?.bytes, built.bytes, 'processing: its container')
    await c.blocks.accept(built.id)
    assert.deepEqual(c.blocks.lastAccepted(), { id: built.id, height: 1 })
    assert.equal(c.blocks.preferred, built.id)
    assert.equal(await c.blocks.isAccepted(built.id), true)
    assert.equal(await c.blocks.acceptedIdAt(1), built.id)
    const served = await c.blocks.container(built.id)
    assert.ok(served !== undefined)
    assert.deepEqual(served.bytes, built.bytes, 'the accepted container is the one that was verified')
    assert.equal(served.height, 1)

    // bootstrapping: a fresh node executes the served container without the window check, keeping the signature
    const d = await open(other)
    await d.blocks.executeAccepted({ ...built, bytes: served.bytes })
    assert.deepEqual(d.blocks.lastAccepted(), { id: built.id, height: 1 })
    assert.deepEqual((await d.blocks.container(built.id))?.bytes, built.bytes)
  })

  it('rejects: the block is forgotten and its items wait for the next one', async () => {
    clock += 60_000
    const a = await open(LOCAL_GENESIS_VALIDATORS[0] as string, [])
    a.vm.add('y')
    const first = await a.blocks.build()
    assert.ok(first.kind === 'built')
    assert.equal(decodeSignedBlock(first.block.bytes).certificate.length, 0, 'no proposer set: unsigned')
    a.blocks.setPreference(first.block.id)
    assert.equal(a.blocks.preferred, first.block.id)
    await a.blocks.reject(first.block.id)
    assert.equal(a.blocks.preferred, a.blocks.lastAccepted().id, 'a rejected preference falls back')
    assert.equal(await a.blocks.container(first.block.id), undefined)
    assert.equal(await a.blocks.isAccepted(first.block.id), false)
    assert.equal(a.vm.hasPending(), true)
    const again = await a.blocks.build()
    assert.ok(again.kind === 'built')
    await a.blocks.accept(again.block.id)
    assert.equal(a.vm.hasPending(), false)
  })
})
