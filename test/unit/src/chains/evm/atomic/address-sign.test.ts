import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import {
  type AddressContext,
  formatLocalAddress,
  parseLocalAddress,
  parseServiceAddress,
} from '../../../../../../src/chains/evm/atomic/address.js'
import { bech32Decode, bech32Encode } from '../../../../../../src/chains/evm/atomic/bech32.js'
import { encodeUnsignedTx } from '../../../../../../src/chains/evm/atomic/codec.js'
import { AtomicError } from '../../../../../../src/chains/evm/atomic/errors.js'
import { toHex } from '../../../../../../src/chains/evm/atomic/hex.js'
import {
  recoverEvmAddress,
  recoverShortAddress,
  recoverSigners,
  shortAddressOfKey,
  signHash,
  signingHash,
  signTx,
} from '../../../../../../src/chains/evm/atomic/sign.js'
import { FirnError } from '../../../../../../src/runtime/errors.js'
import { EWOQ_BECH32, EWOQ_EVM, EWOQ_KEY, importTx, LOCAL } from './fixtures.js'

const ctx: AddressContext = {
  networkId: LOCAL.networkId,
  chainId: LOCAL.cChainId,
  primaryAlias: 'C',
  lookup(alias) {
    const table: Record<string, string> = {
      C: LOCAL.cChainId,
      evm: LOCAL.cChainId,
      X: LOCAL.xChainId,
      P: LOCAL.pChainId,
    }
    const id = table[alias]
    if (id === undefined) throw new FirnError(`there is no ID with alias: ${alias}`)
    return id
  },
}

const throwsText = (fn: () => unknown, message: string): void => {
  assert.throws(fn, (err: unknown) => err instanceof Error && err.message === message)
}

describe('atomic addresses', () => {
  it("formats and parses the test key's address", () => {
    const short = shortAddressOfKey(EWOQ_KEY)
    assert.equal(formatLocalAddress(ctx, short), `C-${EWOQ_BECH32}`)
    assert.equal(parseLocalAddress(ctx, `C-${EWOQ_BECH32}`), short)
    assert.equal(parseLocalAddress(ctx, `evm-${EWOQ_BECH32}`), short)
    assert.equal(parseLocalAddress(ctx, `C-${EWOQ_BECH32.toUpperCase()}`), short)
    assert.equal(parseServiceAddress(ctx, '6Y3kysjF9jnHnYkdS9yGAuoHyae2eNmeV'), short)
  })

  it('refuses addresses with the reference texts', () => {
    throwsText(() => parseLocalAddress(ctx, EWOQ_BECH32), 'no separator found in address')
    throwsText(() => parseServiceAddress(ctx, EWOQ_BECH32), 'no separator found in address')
    throwsText(() => parseLocalAddress(ctx, `Q-${EWOQ_BECH32}`), 'there is no ID with alias: Q')
    throwsText(
      () => parseLocalAddress(ctx, `X-${EWOQ_BECH32}`),
      'expected chainID to be "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC" but was "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"',
    )
    const avax = bech32Encode('avax', Buffer.from(shortAddressOfKey(EWOQ_KEY).slice(2), 'hex'))
    throwsText(() => parseLocalAddress(ctx, `C-${avax}`), 'expected hrp "local" but got "avax"')
    throwsText(
      () => parseLocalAddress(ctx, 'X-avax1pa5vu24v3hd0y9rdqekv9msrz86s90uvc3xyhq'),
      'invalid checksum (expected (bech32=url3kn, bech32m=url3knfl0an3), got c3xyhq)',
    )
    throwsText(
      () => bech32Decode('lux18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u'),
      'invalid checksum (expected (bech32=v98e28, bech32m=v98e28eeh409), got 00z96u)',
    )
    throwsText(() => bech32Decode('a1qqqq'), 'invalid bech32 string length 6')
    throwsText(() => bech32Decode('local1 qqqqqqq'), "invalid character in string: ' '")
    throwsText(() => bech32Decode('Local1qqqqqqq'), 'string not all lowercase or all uppercase')
    throwsText(() => bech32Decode('localqqqqqqqq'), 'invalid separator index -1')
    throwsText(() => bech32Decode('local1qqqqqqb'), 'invalid character not part of charset: 98')
    // 5-bit groups back to bytes pad as btcutil does: 25 bytes come back as 25
    const long = bech32Encode('local', new Uint8Array(25))
    throwsText(() => parseLocalAddress(ctx, `C-${long}`), 'invalid hash length: expected 20 bytes but got 25')
  })
})

describe('atomic signatures', () => {
  it('signs SHA-256 of the unsigned bytes and recovers the signers', () => {
    const unsigned = importTx()
    const tx = signTx(unsigned, [[EWOQ_KEY]])
    assert.deepEqual(recoverSigners(tx), [[shortAddressOfKey(EWOQ_KEY)]])
    const hash = signingHash(encodeUnsignedTx(unsigned))
    const sig = tx.credentials[0]?.signatures[0] as string
    assert.ok(
      secp256k1.verify(Buffer.from(sig.slice(2, 130), 'hex'), hash, secp256k1.getPublicKey(EWOQ_KEY), {
        prehash: false,
      }),
    )
    assert.equal(recoverEvmAddress(hash, sig), EWOQ_EVM)
    assert.ok(['00', '01'].includes(sig.slice(130)))
  })

  it('refuses high-S, bad recovery codes and bad lengths with the reference texts', () => {
    const hash = new Uint8Array(32).fill(7)
    const sig = Buffer.from(signHash(hash, EWOQ_KEY).slice(2), 'hex')
    const n = secp256k1.Point.CURVE().n
    const s = BigInt(`0x${sig.subarray(32, 64).toString('hex')}`)
    const high = Buffer.from(sig)
    Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex').copy(high, 32)
    high[64] = (high[64] as number) ^ 1
    const bad = (b: Uint8Array, message: string) =>
      assert.throws(
        () => recoverShortAddress(hash, toHex(b)),
        (e: unknown) => e instanceof AtomicError && e.message === message,
      )
    bad(high, 'signature was mutated from its original format')
    const compressed = Buffer.from(sig)
    compressed[64] = (compressed[64] as number) + 4
    bad(compressed, "wasn't expecting a compressed key")
    const v9 = Buffer.from(sig)
    v9[64] = 9
    bad(v9, 'invalid signature')
    bad(sig.subarray(0, 64), 'invalid signature length')
    const zeroR = Buffer.from(sig)
    zeroR.fill(0, 0, 32)
    bad(zeroR, 'invalid signature')
  })
})
