/**
 * The chain protocols' codecs (consensus, bootstrap, app, app-gossip): every message round trips through its
 * envelope and a frame with its fields intact; decoding refuses too many container IDs or containers, frames over
 * 2 MiB and garbage; the specs wrap and unwrap bodies; the wire <-> API ID conversions of src/network/chain-wire.ts.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AppGossip } from '../../../../protocols/app/app.js'
import { appGossipProtocol } from '../../../../protocols/app/gossip.js'
import { AppErrorCode, AppMessage, appProtocol, appSpec } from '../../../../protocols/app/service.js'
import {
  BootstrapMessage,
  bootstrapProtocol,
  bootstrapSpec,
  EngineType,
  MAX_ANCESTORS,
  MAX_CONTAINER_IDS,
} from '../../../../protocols/bootstrap/service.js'
import { encodeFrame, FrameTooLargeError, FrameUndecodableError, readFrame } from '../../../../protocols/codec/frame.js'
import { ConsensusMessage, consensusProtocol, consensusSpec } from '../../../../protocols/consensus/service.js'
import {
  blockIdBytes,
  blockIdOf,
  blockIdsOf,
  chainIdBytes,
  chainIdOf,
  chitsFromWire,
  chitsToWire,
  heightOf,
} from '../../../../src/network/chain-wire.js'

const id = (n: number): Uint8Array => new Uint8Array(32).fill(n)
const CHAIN = id(7)
const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b)

async function* once(chunk: Uint8Array): AsyncGenerator<Uint8Array> {
  yield chunk
}

/** encode as a frame, read it back */
async function viaFrame<T>(
  codec: { encode(m: Partial<T>): Uint8Array; decode(b: Uint8Array): T },
  message: T,
): Promise<T> {
  return readFrame<T>(once(encodeFrame<T>(codec, message)), codec)
}

describe('protocol IDs', () => {
  it('are /firn/<networkId>/<name>/2', () => {
    assert.equal(consensusProtocol(12345), '/firn/12345/consensus/2')
    assert.equal(bootstrapProtocol(1), '/firn/1/bootstrap/2')
    assert.equal(appProtocol(5), '/firn/5/app/2')
    assert.equal(appGossipProtocol(5), '/firn/5/app-gossip/2')
  })
})

describe('consensus codec', () => {
  it('PushQuery, PullQuery and Get round trip in their envelope with request id and deadline', async () => {
    const requests = [
      { pushQuery: { chainId: CHAIN, container: bytes(1, 2, 3), requestedHeight: 2 ** 40 } },
      { pullQuery: { chainId: CHAIN, containerId: id(9), requestedHeight: 17 } },
      { get: { chainId: CHAIN, containerId: id(3) } },
    ]
    for (const request of requests) {
      const env = consensusSpec.wrapRequest(request, 42, 1_700_000_000_123n)
      const back = await viaFrame(ConsensusMessage, env)
      assert.equal(back.requestId, 42)
      assert.equal(back.deadlineMs, 1_700_000_000_123n)
      assert.deepEqual(consensusSpec.requestOf(back), request)
      assert.equal(consensusSpec.responseOf(back), undefined)
    }
  })

  it('Chits and Put round trip as responses (deadline 0)', async () => {
    const chits = {
      chainId: CHAIN,
      preferredId: id(1),
      preferredIdAtHeight: id(2),
      acceptedId: id(3),
      acceptedHeight: 123_456,
    }
    for (const response of [{ chits }, { put: { chainId: CHAIN, container: bytes(9, 9) } }]) {
      const back = await viaFrame(ConsensusMessage, consensusSpec.wrapResponse(response, 7))
      assert.equal(back.requestId, 7)
      assert.equal(back.deadlineMs, 0n)
      assert.deepEqual(consensusSpec.responseOf(back), response)
      assert.equal(consensusSpec.requestOf(back), undefined)
    }
  })

  it('a frame over 2 MiB is refused on encode and on decode', async () => {
    const container = new Uint8Array(2 * 1024 * 1024)
    const big = consensusSpec.wrapRequest({ pushQuery: { chainId: CHAIN, container, requestedHeight: 1 } }, 1, 1n)
    assert.throws(() => encodeFrame(ConsensusMessage, big), FrameTooLargeError)
    const body = ConsensusMessage.encode(big)
    const frame = Uint8Array.from([...varint(body.byteLength), ...body])
    await assert.rejects(readFrame(once(frame), ConsensusMessage), FrameTooLargeError)
  })

  it('garbage is refused as undecodable', async () => {
    const frame = Uint8Array.from([5, 0xff, 0xff, 0xff, 0xff, 0xff])
    await assert.rejects(readFrame(once(frame), ConsensusMessage), FrameUndecodableError)
  })
})

describe('bootstrap codec', () => {
  it('every request and response round trips', async () => {
    const requests = [
      { getAcceptedFrontier: { chainId: CHAIN } },
      { getAccepted: { chainId: CHAIN, containerIds: [id(1), id(2)] } },
      { getAncestors: { chainId: CHAIN, containerId: id(4), engineType: EngineType.Chain } },
    ]
    for (const request of requests) {
      const back = await viaFrame(BootstrapMessage, bootstrapSpec.wrapRequest(request, 3, 99n))
      assert.equal(back.requestId, 3)
      assert.equal(back.deadlineMs, 99n)
      assert.deepEqual(bootstrapSpec.requestOf(back), request)
    }
    const responses = [
      { acceptedFrontier: { chainId: CHAIN, containerId: id(5) } },
      { accepted: { chainId: CHAIN, containerIds: [id(6)] } },
      { ancestors: { chainId: CHAIN, containers: [bytes(1), bytes(2, 3), new Uint8Array(0)] } },
    ]
    for (const response of responses) {
      const back = await viaFrame(BootstrapMessage, bootstrapSpec.wrapResponse(response, 4))
      assert.deepEqual(bootstrapSpec.responseOf(back), response)
    }
  })

  it('decodes at most 10,000 container IDs and 2,000 containers', () => {
    assert.equal(MAX_CONTAINER_IDS, 10_000)
    assert.equal(MAX_ANCESTORS, 2_000)
    const ids = (n: number) => Array.from({ length: n }, () => id(1))
    const at = (containerIds: Uint8Array[]) =>
      BootstrapMessage.encode(bootstrapSpec.wrapRequest({ getAccepted: { chainId: CHAIN, containerIds } }, 1, 1n))
    assert.equal(BootstrapMessage.decode(at(ids(10_000))).request?.getAccepted?.containerIds.length, 10_000)
    assert.throws(() => BootstrapMessage.decode(at(ids(10_001))), /too many elements/)
    const accepted = (containerIds: Uint8Array[]) =>
      BootstrapMessage.encode(bootstrapSpec.wrapResponse({ accepted: { chainId: CHAIN, containerIds } }, 1))
    assert.throws(() => BootstrapMessage.decode(accepted(ids(10_001))), /too many elements/)
    const ancestors = (n: number) =>
      BootstrapMessage.encode(
        bootstrapSpec.wrapResponse(
          { ancestors: { chainId: CHAIN, containers: Array.from({ length: n }, () => bytes(1)) } },
          1,
        ),
      )
    assert.equal(BootstrapMessage.decode(ancestors(2_000)).response?.ancestors?.containers.length, 2_000)
    assert.throws(() => BootstrapMessage.decode(ancestors(2_001)), /too many elements/)
  })

  it('a too-long list in a frame is refused as undecodable', async () => {
    const containerIds = Array.from({ length: 10_001 }, () => id(2))
    const frame = encodeFrame(
      BootstrapMessage,
      bootstrapSpec.wrapRequest({ getAccepted: { chainId: CHAIN, containerIds } }, 1, 1n),
    )
    await assert.rejects(readFrame(once(frame), BootstrapMessage), FrameUndecodableError)
  })
})

describe('app codec', () => {
  it('AppRequest, AppResponse and AppError (negative sint32 code) round trip', async () => {
    const req = { chainId: CHAIN, appBytes: bytes(0, 1, 2) }
    const back = await viaFrame(AppMessage, appSpec.wrapRequest(req, 11, 5n))
    assert.deepEqual(appSpec.requestOf(back), req)
    for (const reply of [
      { appResponse: { chainId: CHAIN, appBytes: bytes(4) } },
      { appError: { chainId: CHAIN, errorCode: AppErrorCode.Throttled, errorMessage: 'throttled' } },
      { appError: { chainId: CHAIN, errorCode: -(2 ** 31), errorMessage: '' } },
    ]) {
      const r = await viaFrame(AppMessage, appSpec.wrapResponse(reply, 11))
      assert.deepEqual(appSpec.responseOf(r), reply)
    }
  })

  it('AppGossip round trips as a bare frame', async () => {
    const g = { chainId: CHAIN, appBytes: bytes(1, 2, 3, 4) }
    assert.deepEqual(await viaFrame<AppGossip>(AppGossip, g), g)
  })
})

describe('chain-wire', () => {
  it('block IDs are 0x + 64 lowercase hex <-> 32 bytes', () => {
    const hex = `0x${'ab'.repeat(32)}`
    assert.deepEqual(blockIdBytes(hex), new Uint8Array(32).fill(0xab))
    assert.equal(blockIdOf(new Uint8Array(32).fill(0xab)), hex)
    assert.equal(blockIdOf(new Uint8Array(31)), undefined)
    assert.throws(() => blockIdBytes(`0x${'AB'.repeat(32)}`), RangeError)
    assert.throws(() => blockIdBytes('ab'.repeat(32)), RangeError)
    assert.throws(() => blockIdBytes(`0x${'ab'.repeat(31)}`), RangeError)
    assert.deepEqual(blockIdsOf([id(1), id(2)]), [blockIdOf(id(1)), blockIdOf(id(2))])
    assert.equal(blockIdsOf([id(1), new Uint8Array(3)]), undefined)
  })

  it('chain IDs are CB58 <-> 32 bytes', () => {
    const text = chainIdOf(CHAIN)
    assert.ok(text !== undefined)
    assert.deepEqual(chainIdBytes(text), CHAIN)
    assert.equal(chainIdOf(new Uint8Array(20)), undefined)
    assert.throws(() => chainIdBytes('not-an-id'))
  })

  it('Chits convert both ways; malformed IDs or heights are refused', () => {
    const chits = {
      preferredId: blockIdOf(id(1)) as string,
      preferredIdAtHeight: blockIdOf(id(2)) as string,
      acceptedId: blockIdOf(id(3)) as string,
      acceptedHeight: 9,
    }
    const wire = chitsToWire(CHAIN, chits)
    assert.deepEqual(wire.chainId, CHAIN)
    assert.deepEqual(chitsFromWire(wire), chits)
    assert.equal(chitsFromWire({ ...wire, acceptedId: new Uint8Array(0) }), undefined)
    assert.equal(chitsFromWire({ ...wire, acceptedHeight: 2 ** 60 }), undefined)
    assert.equal(heightOf(-1), undefined)
    assert.equal(heightOf(0), 0)
  })
})

/** unsigned LEB128 */
function varint(n: number): number[] {
  const out: number[] = []
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80)
    n = Math.floor(n / 128)
  }
  out.push(n)
  return out
}
