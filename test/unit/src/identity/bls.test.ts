import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { bls12_381 } from '@noble/curves/bls12-381.js'
import herumi from 'bls-eth-wasm'
import {
  blsKeyGen,
  blsPublicKeyFromBytes,
  blsSignatureFromBytes,
  loadOrCreateSigner,
  newSigner,
  POP_DST,
  SIGNATURE_DST,
  signerFromSecretKey,
  verifyProofOfPossession,
  verifySignature,
} from '../../../../src/identity/bls.js'
import { hexNC, hexNCDecode } from '../../../../src/identity/cb58.js'
import { BlsError } from '../../../../src/identity/errors.js'

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s)
const be = (n: bigint, bytes: number): Uint8Array =>
  Uint8Array.from(Buffer.from(n.toString(16).padStart(bytes * 2, '0'), 'hex'))
const isBlsError = (message: string) => (err: unknown) => err instanceof BlsError && err.message === message

/** The reference's local-network signer: staking/local/signer1.key and its entry in genesis/genesis_local.json. */
const LOCAL_SIGNER = {
  secretKey: ascii('AvalancheLocalNetworkValidator01'),
  publicKey: '0x900c9b119b5c82d781d4b49be78c3fc7ae65f2b435b7ed9e3a8b9a03e475edff86d8a64827fec8db23a6f236afbf127d',
  proofOfPossession:
    '0x8bfd6d4d2086b2b8115d8f72f94095fefe5a6c07876b2accf51a811adf520f389e74a3d2152a6d90b521e2be58ffe468043dc5ea68b4c44410eb67f8dc24f13ed4f194000764c0e922cd254a3588a4962b1cb4db7de4bb9cda9d9d4d6b03f3d2',
}

/** Verifies with herumi's BLS (WASM), an implementation independent of @noble/curves, under a chosen DST. */
function herumiVerify(dst: string, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  ;(herumi as unknown as { setDstG2(dst: string): void }).setDstG2(dst)
  const pk = new herumi.PublicKey()
  pk.deserialize(publicKey)
  const sig = new herumi.Signature()
  try {
    sig.deserialize(signature)
  } catch {
    return false
  }
  return pk.verify(sig, message)
}

/** An encoding of a point on the curve but outside the prime-order subgroup. */
function nonSubgroupG1(): Uint8Array {
  const { Fp } = bls12_381.fields
  for (let x = 1n; ; x++) {
    try {
      Fp.sqrt(Fp.add(Fp.pow(x, 3n), 4n))
    } catch {
      continue
    }
    const bytes = be(x, 48)
    bytes[0] = (bytes[0] ?? 0) | 0x80
    return bytes
  }
}

function nonSubgroupG2(): Uint8Array {
  const { Fp2 } = bls12_381.fields
  const b = Fp2.create({ c0: 4n, c1: 4n })
  for (let c0 = 1n; ; c0++) {
    const x = Fp2.create({ c0, c1: 1n })
    try {
      Fp2.sqrt(Fp2.add(Fp2.pow(x, 3n), b))
    } catch {
      continue
    }
    const bytes = Uint8Array.from([...be(1n, 48), ...be(c0, 48)]) // c1 || c0
    bytes[0] = (bytes[0] ?? 0) | 0x80
    return bytes
  }
}

describe('bls', () => {
  let root = ''
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'firn-bls-'))
    await herumi.init(herumi.BLS12_381)
  })
  after(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('derives keys with the IETF KeyGen blst uses (EIP-2333 master key vectors)', () => {
    const vectors: [string, bigint][] = [
      [
        'c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04',
        6083874454709270928345386274498605044986640685124978867557563392430687146096n,
      ],
      [
        '3141592653589793238462643383279502884197169399375105820974944592',
        29757020647961307431480504535336562678282505419141012933316116377660817309383n,
      ],
    ]
    for (const [seed, expected] of vectors) {
      assert.equal(hexNC(blsKeyGen(hexNCDecode(`0x${seed}`))), hexNC(be(expected, 32)))
    }
    assert.throws(() => blsKeyGen(new Uint8Array(31)), BlsError)
  })

  it('reproduces the reference local signer proof of possession', () => {
    const signer = signerFromSecretKey(LOCAL_SIGNER.secretKey)
    assert.deepEqual(signer.proofOfPossession(), {
      publicKey: LOCAL_SIGNER.publicKey,
      proofOfPossession: LOCAL_SIGNER.proofOfPossession,
    })
  })

  it('makes a proof of possession that an independent BLS implementation accepts', () => {
    const signer = newSigner()
    const { publicKey, proofOfPossession } = signer.proofOfPossession()
    assert.match(publicKey, /^0x[0-9a-f]{96}$/)
    assert.match(proofOfPossession, /^0x[0-9a-f]{192}$/)
    const pk = hexNCDecode(publicKey)
    const pop = hexNCDecode(proofOfPossession)
    assert.deepEqual(pk, signer.publicKey)
    assert.equal(herumiVerify(POP_DST, pk, pk, pop), true)
    assert.equal(herumiVerify(SIGNATURE_DST, pk, pk, pop), false, 'the POP uses the POP DST, not the signature DST')
    const other = newSigner().proofOfPossession()
    assert.equal(herumiVerify(POP_DST, pk, pk, hexNCDecode(other.proofOfPossession)), false, 'a foreign POP fails')
    const tampered = Uint8Array.from(pop)
    tampered[95] = (tampered[95] ?? 0) ^ 1
    assert.equal(herumiVerify(POP_DST, pk, pk, tampered), false, 'a tampered POP fails')
    const localPk = hexNCDecode(LOCAL_SIGNER.publicKey)
    assert.equal(herumiVerify(POP_DST, localPk, localPk, hexNCDecode(LOCAL_SIGNER.proofOfPossession)), true)
  })

  it('signs with both DSTs, verified independently and by our own verifiers', () => {
    const signer = newSigner()
    const message = ascii('a warp message')
    const signature = signer.sign(message)
    const popSignature = signer.signProofOfPossession(message)
    assert.equal(signature.length, 96)
    assert.equal(herumiVerify(SIGNATURE_DST, signer.publicKey, message, signature), true)
    assert.equal(herumiVerify(POP_DST, signer.publicKey, message, popSignature), true)
    assert.equal(verifySignature(signer.publicKey, message, signature), true)
    assert.equal(verifyProofOfPossession(signer.publicKey, message, popSignature), true)
    assert.equal(verifySignature(signer.publicKey, message, popSignature), false)
    assert.equal(verifyProofOfPossession(signer.publicKey, message, signature), false)
    assert.equal(verifySignature(signer.publicKey, ascii('another message'), signature), false)
    assert.equal(verifySignature(newSigner().publicKey, message, signature), false)
    const parsed = blsPublicKeyFromBytes(signer.publicKey)
    assert.equal(verifySignature(parsed, message, blsSignatureFromBytes(signature)), true)
    assert.equal(verifySignature(Uint8Array.of(1), message, signature), false)
    assert.equal(verifySignature(signer.publicKey, message, Uint8Array.of(1)), false)
  })

  it('parses public keys with the reference errors', () => {
    const good = newSigner().publicKey
    assert.deepEqual(blsPublicKeyFromBytes(good).toBytes(true), good)
    const decompress = isBlsError("couldn't decompress public key")
    assert.throws(() => blsPublicKeyFromBytes(good.subarray(0, 47)), decompress)
    assert.throws(() => blsPublicKeyFromBytes(new Uint8Array(48)), decompress) // compression flag missing
    const outOfField = new Uint8Array(48).fill(0xff)
    outOfField[0] = 0x9f
    assert.throws(() => blsPublicKeyFromBytes(outOfField), decompress)
    const infinity = new Uint8Array(48)
    infinity[0] = 0xc0
    assert.throws(() => blsPublicKeyFromBytes(infinity), isBlsError('invalid public key'))
    assert.throws(() => blsPublicKeyFromBytes(nonSubgroupG1()), isBlsError('invalid public key'))
  })

  it('parses signatures with the reference errors', () => {
    const good = newSigner().sign(ascii('m'))
    assert.deepEqual(bls12_381.longSignatures.Signature.toBytes(blsSignatureFromBytes(good)), good)
    const decompress = isBlsError("couldn't decompress signature")
    assert.throws(() => blsSignatureFromBytes(good.subarray(0, 95)), decompress)
    assert.throws(() => blsSignatureFromBytes(new Uint8Array(96)), decompress)
    assert.throws(() => blsSignatureFromBytes(nonSubgroupG2()), isBlsError('invalid signature'))
    const infinity = new Uint8Array(96)
    infinity[0] = 0xc0
    assert.equal(blsSignatureFromBytes(infinity).is0(), true, 'infinity parses, as blst SigValidate(false)')
    assert.equal(verifySignature(newSigner().publicKey, ascii('m'), infinity), false)
  })

  it('rejects secret keys that are not 32-byte non-zero scalars', () => {
    const order = bls12_381.fields.Fr.ORDER
    for (const bad of [new Uint8Array(31), new Uint8Array(33), new Uint8Array(32), be(order, 32), be(order + 1n, 32)]) {
      assert.throws(() => signerFromSecretKey(bad), isBlsError("couldn't deserialize secret key"))
    }
    assert.equal(signerFromSecretKey(be(order - 1n, 32)).publicKey.length, 48)
  })

  it('creates signer.key (32 raw bytes, 0400, directory 0750) and reloads the same key', async () => {
    const path = join(root, 'a', 'staking', 'signer.key')
    const created = await loadOrCreateSigner({ path, explicit: false })
    const bytes = await readFile(path)
    assert.equal(bytes.length, 32)
    assert.equal((await stat(path)).mode & 0o777, 0o400)
    assert.equal((await stat(join(path, '..'))).mode & 0o777, 0o750 & ~process.umask())
    assert.deepEqual(signerFromSecretKey(new Uint8Array(bytes)).publicKey, created.publicKey)
    const reloaded = await loadOrCreateSigner({ path, explicit: true })
    assert.deepEqual(reloaded.proofOfPossession(), created.proofOfPossession())
  })

  it('loads the reference signer1.key', async () => {
    const path = join(root, 'b', 'signer.key')
    await mkdir(join(path, '..'), { recursive: true })
    await writeFile(path, LOCAL_SIGNER.secretKey)
    const signer = await loadOrCreateSigner({ path, explicit: true })
    assert.equal(signer.proofOfPossession().publicKey, LOCAL_SIGNER.publicKey)
  })

  it('fails clearly on a missing explicit key or an invalid key file', async () => {
    const missing = join(root, 'c', 'signer.key')
    await assert.rejects(loadOrCreateSigner({ path: missing, explicit: true }), (err: unknown) => {
      return (
        err instanceof BlsError &&
        err.reason === 'BLS_ERROR_MISSING_FILE' &&
        err.message === 'missing staking signing key file'
      )
    })
    await assert.rejects(stat(missing), { code: 'ENOENT' })
    const dir = join(root, 'd')
    await mkdir(dir, { recursive: true })
    for (const [name, content] of [
      ['short', new Uint8Array(31)],
      ['zero', new Uint8Array(32)],
      ['order', be(bls12_381.fields.Fr.ORDER, 32)],
      ['huge', new Uint8Array(10_000)],
    ] as const) {
      const path = join(dir, name)
      await writeFile(path, content)
      await assert.rejects(
        loadOrCreateSigner({ path, explicit: false }),
        isBlsError("couldn't parse signing key: couldn't deserialize secret key"),
      )
    }
  })
})
