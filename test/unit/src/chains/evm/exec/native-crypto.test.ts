import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { bigIntToUnpaddedBytes, ecrecover } from '@ethereumjs/util'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { fastEcrecover, fastKeccak256, nativeCrypto } from '../../../../../../src/chains/evm/exec/native-crypto.js'

const N = secp256k1.Point.CURVE().n

/** a signature of `hash` by key `k`: r, s, recovery bit */
function sign(k: number, hash: Uint8Array) {
  const key = keccak_256(new Uint8Array([k, 1, 2, 3]))
  const rec = secp256k1.sign(hash, key, { prehash: false, format: 'recovered' })
  return { bit: BigInt(rec[0]!), r: rec.slice(1, 33), s: rec.slice(33, 65) }
}

const outcome = (f: () => Uint8Array): string => {
  try {
    return Buffer.from(f()).toString('hex')
  } catch {
    return 'throws'
  }
}

describe('native crypto', () => {
  it('loads libsecp256k1 and the native keccak (the packages fall back to JS silently otherwise)', () => {
    assert.deepEqual(nativeCrypto, { secp256k1: true, keccak: true })
  })

  it('recovers the same senders as ethereumjs, and refuses the same signatures', () => {
    for (let i = 0; i < 24; i++) {
      const hash = keccak_256(new Uint8Array([i]))
      const { bit, r, s } = sign(i, hash)
      const cases: [bigint, Uint8Array, Uint8Array, bigint | undefined][] = [
        [bit, r, s, undefined], // typed txs: v = yParity
        [27n + bit, r, s, undefined], // legacy
        [43112n * 2n + 35n + bit, r, s, 43112n], // EIP-155
        [27n + bit, r.slice(1), s, undefined], // a short r (unpadded bytes)
        [29n, r, s, undefined], // bad v
        [27n + bit, new Uint8Array(0), s, undefined], // r = 0
        [27n + bit, bigIntToUnpaddedBytes(N), s, undefined], // r = n
        [27n + bit, r, bigIntToUnpaddedBytes(N + 1n), undefined], // s > n
      ]
      for (const [v, rr, ss, chainId] of cases) {
        assert.equal(
          outcome(() => fastEcrecover(hash, v, rr, ss, chainId)),
          outcome(() => ecrecover(hash, v, rr, ss, chainId)),
          `key ${i}, v ${v}`,
        )
      }
    }
  })

  it('hashes as noble keccak-256 does, for views into larger buffers too', () => {
    const big = new Uint8Array(300).map((_, i) => i * 7)
    for (const data of [new Uint8Array(0), big, big.subarray(5, 5), big.subarray(3, 140), Buffer.from(big)]) {
      const h = fastKeccak256(data)
      assert.deepEqual(h, keccak_256(data))
      assert.equal(h.byteOffset, 0)
      assert.equal(h.buffer.byteLength, 32, 'a hash owns its 32 bytes')
    }
  })

  it('starts every hash afresh on its reused sponge, at and around the 136-byte rate', () => {
    const data = new Uint8Array(1000).map((_, i) => (i * 31) & 0xff)
    for (let round = 0; round < 2; round++) {
      for (const n of [0, 1, 31, 32, 135, 136, 137, 271, 272, 273, 1000]) {
        assert.deepEqual(fastKeccak256(data.subarray(0, n)), keccak_256(data.subarray(0, n)), `${n} bytes`)
      }
    }
  })
})
