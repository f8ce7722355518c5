import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { PullGossipRequest, PushGossip } from '../../../../../../protocols/gossip/sdk.js'
import {
  batchBySize,
  decodePullRequest,
  decodePullResponse,
  decodePushGossip,
  decodeUvarint,
  encodedItemSize,
  encodePullRequest,
  encodePullResponse,
  encodePushGossip,
  encodeUvarint,
  GossipDecodeError,
  MAX_GOSSIP_ITEMS,
  MAX_GOSSIP_MESSAGE_BYTES,
  splitHandlerPrefix,
  withHandlerPrefix,
} from '../../../../../../src/chains/evm/gossip/wire.js'

describe('tx gossip wire', () => {
  it('writes and reads uvarints as Go does', () => {
    assert.deepEqual([...encodeUvarint(0n)], [0])
    assert.deepEqual([...encodeUvarint(1n)], [1])
    assert.deepEqual([...encodeUvarint(300n)], [0xac, 0x02])
    const max = (1n << 64n) - 1n
    assert.deepEqual([...encodeUvarint(max)], [...Array(9).fill(0xff), 0x01])
    assert.deepEqual(decodeUvarint(encodeUvarint(max)), { value: max, length: 10 })
    assert.deepEqual(decodeUvarint(Uint8Array.of(0xac, 0x02, 0x99)), { value: 300n, length: 2 })
    assert.throws(() => decodeUvarint(new Uint8Array(0)), GossipDecodeError)
    assert.throws(() => decodeUvarint(Uint8Array.of(0x80, 0x80)), GossipDecodeError)
    assert.throws(() => decodeUvarint(Uint8Array.of(...Array(9).fill(0xff), 0x02)), GossipDecodeError)
    assert.throws(() => encodeUvarint(1n << 64n), RangeError)
  })

  it('prefixes app bytes with the handler ID', () => {
    const bytes = withHandlerPrefix(0n, Uint8Array.of(9, 8))
    assert.deepEqual([...bytes], [0, 9, 8])
    const split = splitHandlerPrefix(withHandlerPrefix(130n, Uint8Array.of(7)))
    assert.equal(split.handlerId, 130n)
    assert.deepEqual([...split.payload], [7])
  })

  it('round-trips the sdk payloads with the reference field numbers', () => {
    const items = [Uint8Array.of(1, 2, 3), Uint8Array.of(4)]
    assert.deepEqual(decodePushGossip(encodePushGossip(items)), items)
    assert.deepEqual(decodePullResponse(encodePullResponse(items)), items)
    const salt = new Uint8Array(32).fill(5)
    const req = encodePullRequest(salt, Uint8Array.of(1, 0, 0))
    // salt is field 2, filter field 3 (field 1 is reserved)
    assert.equal(req[0], (2 << 3) | 2)
    assert.deepEqual(decodePullRequest(req), { salt, filter: Uint8Array.of(1, 0, 0) })
  })

  it('refuses oversized messages, too many items and long salts', () => {
    const many = PushGossip.encode({ gossip: Array.from({ length: MAX_GOSSIP_ITEMS + 1 }, () => Uint8Array.of(1)) })
    assert.throws(() => decodePushGossip(many), GossipDecodeError)
    assert.throws(() => decodePullResponse(many), GossipDecodeError)
    const exact = PushGossip.encode({ gossip: Array.from({ length: MAX_GOSSIP_ITEMS }, () => Uint8Array.of(1)) })
    assert.equal(decodePushGossip(exact).length, MAX_GOSSIP_ITEMS)
    const huge = new Uint8Array(MAX_GOSSIP_MESSAGE_BYTES + 1)
    assert.throws(() => decodePushGossip(huge), GossipDecodeError)
    const longSalt = PullGossipRequest.encode({ salt: new Uint8Array(33), filter: Uint8Array.of(1, 0, 0) })
    assert.throws(() => decodePullRequest(longSalt), GossipDecodeError)
    assert.throws(() => decodePushGossip(Uint8Array.of(0x0a, 0x05, 1)), GossipDecodeError)
  })

  it('splits items into messages within the byte budget; an oversized item goes alone', () => {
    const item = (n: number) => ({ bytes: new Uint8Array(n) })
    const items = [item(100), item(100), item(100), item(500), item(50)]
    const batches = batchBySize(items, 250)
    assert.deepEqual(
      batches.map((b) => b.map((i) => i.bytes.length)),
      [[100, 100], [100], [500], [50]],
    )
    for (const b of batches) {
      const encoded = encodePushGossip(b.map((i) => i.bytes))
      assert.equal(
        encoded.length,
        b.reduce((s, i) => s + encodedItemSize(i.bytes), 0),
      )
      if (b.length > 1) assert.ok(encoded.length <= 250)
    }
    assert.deepEqual(batchBySize([], 250), [])
  })
})
