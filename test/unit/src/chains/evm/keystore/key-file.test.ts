import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { goParseBigInt, parseDerivationPath } from '../../../../../../src/chains/evm/keystore/derivation-path.js'
import {
  decryptKey,
  encryptKey,
  KeystoreText,
  keyAddress,
  keyFileName,
} from '../../../../../../src/chains/evm/keystore/key-file.js'
import { parseRawKey } from '../../../../../../src/chains/evm/keystore/keystore.js'
import { recoverAddress, signHash, textHash } from '../../../../../../src/chains/evm/keystore/signing.js'

/** The Web3 Secret Storage definition's test vectors (password "testpassword"). */
const VECTOR_KEY = '7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d'
const SCRYPT_VECTOR = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
    ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
    kdf: 'scrypt',
    kdfparams: {
      dklen: 32,
      n: 262144,
      p: 8,
      r: 1,
      salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19',
    },
    mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
}
const PBKDF2_VECTOR = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
    ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
    kdf: 'pbkdf2',
    kdfparams: {
      c: 262144,
      dklen: 32,
      prf: 'hmac-sha256',
      salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd',
    },
    mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
}
const LIGHT = { n: 4096, r: 8, p: 6 }
const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex')

describe('Web3 Secret Storage v3 key files', () => {
  it('writes geth standard scrypt files that decrypt back to the key', async () => {
    const key = parseRawKey(VECTOR_KEY)
    const json = await encryptKey(key, 'pässword')
    const doc = JSON.parse(JSON.stringify(json)) as typeof json
    assert.equal(doc.version, 3)
    assert.equal(doc.address, keyAddress(key).slice(2))
    assert.equal(doc.address, '008aeeda4d805471df9b2a5b0f38a0c3bcba786b')
    assert.match(doc.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.deepEqual(Object.keys(doc), ['address', 'crypto', 'id', 'version'])
    assert.equal(doc.crypto.cipher, 'aes-128-ctr')
    assert.equal(doc.crypto.kdf, 'scrypt')
    assert.deepEqual(Object.keys(doc.crypto.kdfparams), ['dklen', 'n', 'p', 'r', 'salt'])
    assert.deepEqual(
      { ...doc.crypto.kdfparams, salt: undefined },
      { dklen: 32, n: 262144, p: 1, r: 8, salt: undefined },
    )
    assert.match(doc.crypto.kdfparams.salt as string, /^[0-9a-f]{64}$/)
    assert.match(doc.crypto.cipherparams.iv, /^[0-9a-f]{32}$/)
    assert.match(doc.crypto.ciphertext, /^[0-9a-f]{64}$/)
    assert.match(doc.crypto.mac, /^[0-9a-f]{64}$/)
    assert.equal(hexOf(await decryptKey(JSON.stringify(doc), 'pässword')), VECTOR_KEY)
  })

  it('decrypts the spec scrypt test vector', async () => {
    assert.equal(hexOf(await decryptKey(JSON.stringify(SCRYPT_VECTOR), 'testpassword')), VECTOR_KEY)
  })

  it('decrypts the spec pbkdf2 test vector and rejects a wrong password with geth text', async () => {
    assert.equal(hexOf(await decryptKey(PBKDF2_VECTOR, 'testpassword')), VECTOR_KEY)
    await assert.rejects(decryptKey(PBKDF2_VECTOR, 'wrong'), { message: KeystoreText.decrypt })
    assert.equal(KeystoreText.decrypt, 'could not decrypt key with given password')
  })

  it('rejects unsupported files with geth texts', async () => {
    const json = await encryptKey(parseRawKey(VECTOR_KEY), 'pw', LIGHT)
    await assert.rejects(decryptKey({ ...json, version: 2 }, 'pw'), { message: 'version not supported: 2' })
    await assert.rejects(decryptKey({ ...json, crypto: { ...json.crypto, cipher: 'aes-256-cbc' } }, 'pw'), {
      message: 'cipher not supported: aes-256-cbc',
    })
    await assert.rejects(decryptKey({ ...json, crypto: { ...json.crypto, kdf: 'argon2' } }, 'pw'), {
      message: 'unsupported KDF: argon2',
    })
    const pb = { ...PBKDF2_VECTOR.crypto, kdfparams: { ...PBKDF2_VECTOR.crypto.kdfparams, prf: 'hmac-sha1' } }
    await assert.rejects(decryptKey({ ...PBKDF2_VECTOR, crypto: pb }, 'x'), {
      message: 'unsupported PBKDF2 PRF: hmac-sha1',
    })
    await assert.rejects(decryptKey(json, 'x'.repeat(1025)), { message: 'password longer than 1024 bytes' })
  })

  it('names files as geth does', () => {
    const ms = Date.UTC(2024, 0, 2, 3, 4, 5, 678)
    assert.equal(
      keyFileName('0x008AeEda4D805471dF9b2A5B0f38A0C3bCBA786b', ms, 901_234),
      'UTC--2024-01-02T03-04-05.678901234Z--008aeeda4d805471df9b2a5b0f38a0c3bcba786b',
    )
  })
})

describe('raw keys (crypto.HexToECDSA)', () => {
  it('reports geth texts', () => {
    assert.throws(() => parseRawKey(`0x${VECTOR_KEY}`), { message: "invalid hex character 'x' in private key" })
    assert.throws(() => parseRawKey('abc'), { message: 'invalid hex data for private key' })
    assert.throws(() => parseRawKey('abcd'), { message: 'invalid length, need 256 bits' })
    assert.throws(() => parseRawKey('00'.repeat(32)), { message: 'invalid private key, zero or negative' })
    assert.throws(() => parseRawKey('ff'.repeat(32)), { message: 'invalid private key, >=N' })
    assert.throws(() => parseRawKey('zz'), { message: "invalid hex character 'z' in private key" })
  })
})

describe('signing', () => {
  it('signs [R || S || V] and recovers the signer', () => {
    const key = parseRawKey(VECTOR_KEY)
    const hash = textHash(new TextEncoder().encode('hello'))
    assert.equal(hexOf(hash), '50b2c43fd39106bafbba0da34fc430e1f91e3c96ea2acee2bc34119f92b37750')
    const sig = signHash(hash, key)
    assert.equal(sig.length, 65)
    assert.ok(sig[64] === 0 || sig[64] === 1)
    assert.equal(recoverAddress(hash, sig), keyAddress(key))
  })
})

describe('derivation paths (accounts.ParseDerivationPath)', () => {
  it('parses absolute and relative paths', () => {
    const H = 0x8000_0000
    assert.deepEqual(parseDerivationPath("m/44'/60'/0'/0/1"), [H + 44, H + 60, H, 0, 1])
    assert.deepEqual(parseDerivationPath('1'), [H + 44, H + 60, H, 0, 1])
    assert.deepEqual(parseDerivationPath("m/ 0x10 / 0b11' /010"), [16, H + 3, 8])
  })

  it('reports geth texts', () => {
    assert.throws(() => parseDerivationPath('/1'), {
      message: "ambiguous path: use 'm/' prefix for absolute paths, or no leading '/' for relative ones",
    })
    assert.throws(() => parseDerivationPath('m'), { message: 'empty derivation path' })
    assert.throws(() => parseDerivationPath('m/x'), { message: 'invalid component: x' })
    assert.throws(() => parseDerivationPath('m/4294967296'), {
      message: 'component 4294967296 out of allowed range [0, 4294967295]',
    })
    assert.throws(() => parseDerivationPath("m/2147483648'"), {
      message: 'component 2147483648 out of allowed hardened range [0, 2147483647]',
    })
    assert.throws(() => parseDerivationPath('m/-1'), { message: 'component -1 out of allowed range [0, 4294967295]' })
  })

  it('reads integers as Go big.Int SetString(s, 0) does', () => {
    assert.equal(goParseBigInt('1_000'), 1000n)
    assert.equal(goParseBigInt('0x_ff'), 255n)
    assert.equal(goParseBigInt('0o17'), 15n)
    assert.equal(goParseBigInt('08'), undefined)
    assert.equal(goParseBigInt('1__0'), undefined)
    assert.equal(goParseBigInt(''), undefined)
    assert.equal(goParseBigInt('0x'), undefined)
  })
})
