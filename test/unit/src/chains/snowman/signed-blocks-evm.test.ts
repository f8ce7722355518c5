/**
 * Firn's EVM under SignedBlocks (src/chains/snowman/signed-blocks.ts) through the chain VM interface, on real EVMs
 * with the same genesis (reference consensus.md 2.2-2.3): the containers and IDs are what they were before the
 * layer was generalised (the block's RLP in the envelope, the block hash as ID, the signature kept under the hash in
 * the chain's `proposer` sublevel); only the slot's expected proposer's signed block verifies; a wrong signer or an
 * unsigned block is refused with proposervm's texts; a node that is not the slot's proposer builds nothing; accepted
 * blocks keep their signature for Get/Ancestors; a block built on a processing parent carries the next txs.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { bytesToHex } from '@ethereumjs/util'
import { expectedProposer, slotOf } from '../../../../../actors/consensus/proposer.js'
import { decodeBlock, headerHash } from '../../../../../src/chains/evm/header.js'
import {
  decodeSignedBlock,
  encodeSignedBlock,
  signBlock,
  signerOf,
} from '../../../../../src/chains/snowman/signed-block.js'
import { SignedBlocks } from '../../../../../src/chains/snowman/signed-blocks.js'
import { stakingIdentityFromPem } from '../../../../../src/identity/staking.js'
import { genesisValidators, LOCAL_GENESIS_VALIDATORS } from '../../../../../src/network/validators.js'
import { openTestChainVm, type TestChainVm } from '../../../../helpers/evm-chain-vm.js'

const FIXTURES = join(import.meta.dirname, '../../../../fixtures/staking')
const stakers = [1, 2, 3, 4, 5].map((i) =>
  stakingIdentityFromPem(
    readFileSync(join(FIXTURES, `staker${i}.key`), 'utf8'),
    readFileSync(join(FIXTURES, `staker${i}.crt`), 'utf8'),
  ),
)
const validators = genesisValidators(12345)
const chainId = new Uint8Array(32).fill(9)
const identityOf = (nodeId: string) => {
  const s = stakers[LOCAL_GENESIS_VALIDATORS.indexOf(nodeId)]
  if (s === undefined) throw new Error(`no staker ${nodeId}`)
  return s
}

describe('SignedBlocks over the EVM: signed blocks and proposer windows', () => {
  let clock = Date.now()
  const now = () => clock
  const chains: TestChainVm[] = []
  after(async () => {
    for (const c of chains) await c.close()
  })

  const genesisTimeMs = async (): Promise<number> => {
    const chain = await openTestChainVm({ now })
    const ts = (await chain.vm.getBlock(chain.vm.lastAccepted().id))?.timestampMs
    await chain.close()
    assert.ok(ts !== undefined)
    return ts
  }

  const open = async (nodeId: string) => {
    const chain = await openTestChainVm({ now })
    chains.push(chain)
    const blocks = new SignedBlocks({
      vm: chain.vm,
      db: chain.db,
      chainId,
      identity: identityOf(nodeId),
      proposers: () => validators,
      now,
    })
    return { chain, blocks }
  }

  it('accepts only the slot proposer signed block, and keeps its signature once accepted', async () => {
    const genesisTs = await genesisTimeMs()
    const slot = slotOf(genesisTs, clock)
    const proposer = expectedProposer(validators, chainId, 1n, slot)
    assert.ok(proposer !== undefined)
    const other = LOCAL_GENESIS_VALIDATORS.find((n) => n !== proposer)!
    const a = await open(proposer)
    const b = await open(other)
    const c = await open(other)

    // the proposer builds and signs; the other node, not the slot's proposer, builds nothing
    await a.chain.vm.admitTransaction(await a.chain.signTransfer())
    await b.chain.vm.admitTransaction(await b.chain.signTransfer())
    assert.deepEqual(await c.blocks.build(), { kind: 'empty' }, 'nothing to build without a tx')
    const result = await a.blocks.build()
    assert.ok(result.kind === 'built')
    const built = result.block
    assert.deepEqual(await b.blocks.build(), { kind: 'notMySlot' })
    const parsed = await b.blocks.parse(built.bytes)
    assert.equal(parsed?.id, built.id)
    assert.equal(parsed?.height, 1)
    assert.equal(signerOf(decodeSignedBlock(built.bytes), chainId, Buffer.from(built.id.slice(2), 'hex')), proposer)

    // the same EVM block signed by another staker, and unsigned: refused with proposervm's texts
    const inner = decodeSignedBlock(built.bytes).block
    const hash = Buffer.from(built.id.slice(2), 'hex')
    const forged = encodeSignedBlock(signBlock(identityOf(other), chainId, hash, inner))
    await assert.rejects(c.blocks.verify({ ...built, bytes: forged }), /proposer mismatch/)
    const empty = new Uint8Array(0)
    const unsigned = encodeSignedBlock({ block: inner, certificate: empty, signature: empty })
    await assert.rejects(c.blocks.verify({ ...built, bytes: unsigned }), /expected child to be signed/)
    assert.equal(await c.blocks.parse(Uint8Array.from([1, 2, 3])), undefined)

    // the EVM's container as before: its block RLP, its block hash as ID, the signature over the hash's bytes
    const { header } = decodeBlock(inner)
    assert.equal(bytesToHex(headerHash(header)), built.id)
    assert.deepEqual(inner, (await a.chain.vm.getBlock(built.id))?.bytes)

    // the proposer's block verifies and, once accepted, is served with its signature
    await c.blocks.verify(built)
    await c.blocks.accept(built.id)
    assert.deepEqual(c.blocks.lastAccepted(), { id: built.id, height: 1 })
    assert.equal(await c.blocks.isAccepted(built.id), true)
    assert.equal(await c.blocks.acceptedIdAt(1), built.id)
    const served = await c.blocks.container(built.id)
    assert.ok(served !== undefined)
    assert.equal(signerOf(decodeSignedBlock(served.bytes), chainId, hash), proposer)
    assert.equal(served.height, 1)
    assert.deepEqual(served.bytes, built.bytes)
    // the signature lives where it always did: the chain store's `proposer` sublevel, under the block hash
    const kept = await c.chain.vm.evm.core.store.sublevel('proposer').get(hash)
    assert.ok(kept !== undefined)
    assert.deepEqual([...decodeSignedBlock(kept).signature], [...decodeSignedBlock(built.bytes).signature])
  })

  it('a block built on a processing parent holds the next txs, not the parent ones', async () => {
    clock += 60_000
    const parentTs = await genesisTimeMs()
    const proposer = expectedProposer(validators, chainId, 1n, slotOf(parentTs, clock))!
    const a = await open(proposer)
    await a.chain.vm.admitTransaction(await a.chain.signTransfer())
    const result = await a.blocks.build()
    assert.ok(result.kind === 'built')
    const first = result.block
    a.blocks.setPreference(first.id)
    await a.chain.vm.admitTransaction(await a.chain.signTransfer({ nonce: 1n }))
    // move to the slot of whoever proposes height 2, and build as that node would: here, check the VM directly
    const block2 = await a.chain.vm.evm.buildBlock()
    assert.equal(bytesToHex(block2.header.parentHash), first.id)
    assert.deepEqual(
      block2.txs.map((t) => t.nonce),
      [1n],
    )
  })
})
