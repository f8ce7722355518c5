import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Address, hexToBytes } from '@ethereumjs/util'
import { keccak256, Transaction, verifyMessage } from 'ethers'
import { accountMethods, checkTxFee, goFixed2 } from '../../../../../../src/chains/evm/api/accounts.js'
import type { EthBackend } from '../../../../../../src/chains/evm/api/backend.js'
import { Keystore } from '../../../../../../src/chains/evm/keystore/keystore.js'
import { EWOQ_ADDRESS } from '../../../../../../src/chains/evm/rules/presets.js'
import type { CallContext, EthMethod } from '../../../../../../src/rpc/eth-types.js'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'

const LIGHT = { n: 4096, r: 8, p: 6 }
const ctx: CallContext = {
  signal: new AbortController().signal,
  transport: 'http',
  remoteAddress: '127.0.0.1',
  connection: undefined,
}
const ETHER = 10n ** 18n
const TO = `0x${'ab'.repeat(20)}`

function table(backend: EthBackend, ks: Keystore): Map<string, EthMethod> {
  const m = accountMethods(backend, ks)
  return new Map([...m.personal, ...m.account, ...m.transaction])
}

describe('keystore-backed JSON-RPC methods', () => {
  let chain: TestChain
  let ks: Keystore
  let dir: string
  let methods: Map<string, EthMethod>
  const call = async (name: string, ...params: unknown[]) => methods.get(name)!(params, ctx)
  let alice: string
  const balance = async (addr: string) => {
    const view = await chain.vm.core.stateAt(chain.vm.lastAccepted().header.stateRoot)
    return (await view.getAccount(new Address(hexToBytes(addr as `0x${string}`))))?.balance ?? 0n
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firn-accounts-'))
    ks = new Keystore(dir, { scrypt: LIGHT })
    chain = await openTestChain({ config: { keystoreInsecureUnlockAllowed: true } })
    methods = table(chain.vm, ks)
    const checksummed = (await call('personal_newAccount', 'alice-pw')) as string
    assert.match(checksummed, /^0x[0-9a-fA-F]{40}$/)
    assert.notEqual(checksummed, checksummed.toLowerCase())
    alice = checksummed.toLowerCase()
    // fund alice from EWOQ
    await chain.mine([await chain.signTransfer({ to: alice, value: 10n * ETHER })])
  })
  after(async () => {
    ks.close()
    await chain.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('lists accounts and wallets in geth shapes', async () => {
    assert.deepEqual(await call('personal_listAccounts'), [alice])
    assert.deepEqual(await call('eth_accounts'), [alice])
    const [acc] = await ks.accounts()
    assert.deepEqual(await call('personal_listWallets'), [
      { url: acc!.url, status: 'Locked', accounts: [{ address: alice, url: acc!.url }] },
    ])
    assert.ok(acc!.url.startsWith(`keystore://${dir}/UTC--`))
    await assert.rejects(call('eth_accounts', 1), { message: 'too many arguments, want at most 0' })
  })

  it('signs with personal_sign (EIP-191, V 27/28) and recovers with personal_ecRecover', async () => {
    const message = 'hello firn'
    const data = `0x${Buffer.from(message).toString('hex')}`
    const sig = (await call('personal_sign', data, alice, 'alice-pw')) as string
    assert.match(sig, /^0x[0-9a-f]{130}$/)
    assert.ok(['1b', '1c'].includes(sig.slice(-2)))
    assert.equal(verifyMessage(message, sig).toLowerCase(), alice)
    assert.equal(await call('personal_ecRecover', data, sig), alice)
    await assert.rejects(call('personal_sign', data, alice, 'wrong'), {
      message: 'could not decrypt key with given password',
    })
    await assert.rejects(call('personal_sign', data, TO, 'x'), { message: 'unknown account' })
    await assert.rejects(call('personal_ecRecover', data, '0x00'), { message: 'signature must be 65 bytes long' })
    await assert.rejects(call('personal_ecRecover', data, `${sig.slice(0, -2)}01`), {
      message: 'invalid Ethereum signature (V is not 27 or 28)',
    })
    // eth_sign gives the same (deterministic) signature once the account is unlocked
    await assert.rejects(call('eth_sign', alice, data), { message: 'authentication needed: password or unlock' })
    assert.equal(await call('personal_unlockAccount', alice, 'alice-pw', 60), true)
    assert.equal(await call('eth_sign', alice, data), sig)
    assert.equal(await call('personal_lockAccount', alice), true)
  })

  it('sends a transaction with personal_sendTransaction and mines it', async () => {
    const before = await balance(TO)
    const hash = (await call('personal_sendTransaction', { from: alice, to: TO, value: '0x2a' }, 'alice-pw')) as string
    assert.match(hash, /^0x[0-9a-f]{64}$/)
    await chain.mine()
    assert.equal(await balance(TO), before + 42n)
    const loc = await chain.vm.core.getTxLocation(hexToBytes(hash as `0x${string}`))
    assert.ok(loc !== undefined)
    await assert.rejects(call('personal_sendTransaction', { from: alice, to: TO }, 'bad'), {
      message: 'could not decrypt key with given password',
    })
  })

  it('needs an unlocked account for eth_sendTransaction', async () => {
    await assert.rejects(call('eth_sendTransaction', { from: alice, to: TO, value: '0x1' }), {
      message: 'authentication needed: password or unlock',
    })
    await assert.rejects(call('eth_sendTransaction', { from: EWOQ_ADDRESS, to: TO }), { message: 'unknown account' })
    await assert.rejects(call('eth_sendTransaction', { to: TO }), { message: 'unknown account' })
    await call('personal_unlockAccount', alice, 'alice-pw')
    const before = await balance(TO)
    const nonce = await chain.vm.pool.nonce(alice)
    // sends without a nonce from one account take turns: both get their own nonce
    const hashes = await Promise.all(
      [1, 2, 3, 4].map((v) => call('eth_sendTransaction', { from: alice, to: TO, value: `0x${v}` })),
    )
    assert.equal(new Set(hashes).size, 4)
    assert.equal(await chain.vm.pool.nonce(alice), nonce + 4n)
    await chain.mine()
    assert.equal(await balance(TO), before + 10n)
    const [wallet] = (await call('personal_listWallets')) as { status: string }[]
    assert.equal(wallet!.status, 'Unlocked')
    await call('personal_lockAccount', alice)
  })

  it('fills defaults as geth (nonce, estimated gas, 1559 fees) and signs with eth_signTransaction', async () => {
    const nonce = await chain.vm.pool.nonce(alice)
    const filled = (await call('eth_fillTransaction', { from: alice, to: TO, value: '0x5' })) as {
      raw: string
      tx: Record<string, unknown>
    }
    const baseFee = chain.vm.latest().header.baseFee!
    assert.deepEqual(Object.keys(filled.tx), [
      'type',
      'chainId',
      'nonce',
      'to',
      'gas',
      'gasPrice',
      'maxPriorityFeePerGas',
      'maxFeePerGas',
      'value',
      'input',
      'accessList',
      'v',
      'r',
      's',
      'yParity',
      'hash',
    ])
    assert.equal(filled.tx.type, '0x2')
    assert.equal(filled.tx.chainId, `0x${chain.vm.chainId.toString(16)}`)
    assert.equal(filled.tx.nonce, `0x${nonce.toString(16)}`)
    assert.equal(filled.tx.gas, '0x5208')
    assert.equal(filled.tx.gasPrice, null)
    assert.equal(filled.tx.maxPriorityFeePerGas, '0x1')
    assert.equal(filled.tx.maxFeePerGas, `0x${(2n * baseFee + 1n).toString(16)}`)
    assert.equal(filled.tx.to, TO)
    assert.equal(filled.tx.v, '0x0')
    // geth hashes an unsigned tx with zero V, R, S: the raw encoding carries them as empty strings
    const unsigned = Transaction.from(filled.raw)
    assert.equal(unsigned.signature?.r, `0x${'00'.repeat(32)}`)
    assert.equal(unsigned.nonce, Number(nonce))
    assert.equal(unsigned.maxFeePerGas, 2n * baseFee + 1n)
    assert.equal(keccak256(filled.raw), filled.tx.hash)

    const args = { from: alice, to: TO, value: '0x5', gas: '0x5208', gasPrice: '0x3b9aca00', nonce: '0x7' }
    await assert.rejects(call('eth_signTransaction', args), { message: 'authentication needed: password or unlock' })
    await assert.rejects(call('eth_signTransaction', { ...args, nonce: undefined }), { message: 'nonce not specified' })
    await assert.rejects(call('eth_signTransaction', { ...args, gas: undefined }), { message: 'gas not specified' })
    const signed = (await call('personal_signTransaction', args, 'alice-pw')) as {
      raw: string
      tx: Record<string, unknown>
    }
    const tx = Transaction.from(signed.raw)
    assert.equal(tx.from?.toLowerCase(), alice)
    assert.equal(tx.hash, signed.tx.hash)
    assert.equal(tx.type, 0)
    assert.equal(tx.chainId, chain.vm.chainId)
    assert.equal(signed.tx.type, '0x0')
    assert.equal(signed.tx.chainId, `0x${chain.vm.chainId.toString(16)}`)
    assert.equal(signed.tx.maxFeePerGas, null)
    assert.equal(signed.tx.gasPrice, '0x3b9aca00')
    assert.equal(signed.tx.v, `0x${(chain.vm.chainId * 2n + 35n + BigInt(tx.signature!.yParity)).toString(16)}`)
    assert.equal('yParity' in signed.tx, false)
    await assert.rejects(call('personal_signTransaction', { ...args, from: undefined }, 'alice-pw'), {
      message: 'sender not specified',
    })
  })

  it('reports geth fee and chain id errors', async () => {
    const base = { from: alice, to: TO }
    await assert.rejects(call('eth_fillTransaction', { ...base, gasPrice: '0x1', maxFeePerGas: '0x2' }), {
      message: 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
    })
    await assert.rejects(call('eth_fillTransaction', { ...base, maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }), {
      message: 'maxFeePerGas (0x1) < maxPriorityFeePerGas (0x2)',
    })
    await assert.rejects(call('eth_fillTransaction', { ...base, chainId: '0x1' }), {
      message: `chainId does not match node's (have=1, want=${chain.vm.chainId})`,
    })
    await assert.rejects(call('eth_fillTransaction', { from: alice }), {
      message: 'contract creation without any data provided',
    })
    const pricey = { ...base, gas: '0x5208', gasPrice: `0x${(10n ** 16n).toString(16)}`, nonce: '0x0' }
    await assert.rejects(call('personal_signTransaction', pricey, 'alice-pw'), {
      message: 'tx fee (210.00 ether) exceeds the configured cap (100.00 ether)',
    })
  })

  it('unlocks over RPC as coreth does (no insecure-unlock gate), with its argument texts', async () => {
    await assert.rejects(call('personal_unlockAccount', TO, 'x'), { message: 'no key for given address or file' })
    await assert.rejects(call('personal_unlockAccount', alice, 'x', 9_223_372_037), {
      message: 'unlock duration too large',
    })
    await assert.rejects(call('personal_unlockAccount', alice, 'x', '0x1'), {
      message: 'invalid argument 2: json: cannot unmarshal string into Go value of type uint64',
    })
    await assert.rejects(call('personal_unlockAccount', alice), { message: 'missing value for required argument 1' })
  })

  it('imports raw keys and answers the hardware-wallet methods as geth does for keystore wallets', async () => {
    const key = '7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d'
    assert.equal(await call('personal_importRawKey', key, 'pw'), '0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b')
    await assert.rejects(call('personal_importRawKey', key, 'pw'), { message: 'account already exists' })
    await assert.rejects(call('personal_importRawKey', `0x${key}`, 'pw'), {
      message: "invalid hex character 'x' in private key",
    })
    const [acc] = await ks.accounts()
    assert.equal(await call('personal_openWallet', acc!.url), null)
    await assert.rejects(call('personal_openWallet', 'nothing'), { message: 'protocol scheme missing' })
    await assert.rejects(call('personal_openWallet', 'keystore:///nope'), { message: 'unknown wallet' })
    await assert.rejects(call('personal_deriveAccount', acc!.url, "m/44'/60'/0'/0/0"), { message: 'not supported' })
    await assert.rejects(call('personal_deriveAccount', acc!.url, '/0'), {
      message: "ambiguous path: use 'm/' prefix for absolute paths, or no leading '/' for relative ones",
    })
    await assert.rejects(call('personal_initializeWallet', acc!.url), {
      message: 'specified wallet does not support initialization',
    })
    await assert.rejects(call('personal_unpair', acc!.url, '1234'), {
      message: 'specified wallet does not support pairing',
    })
  })
})

describe('checkTxFee formatting', () => {
  it('formats as Go %.2f (half to even on exact ties)', () => {
    assert.equal(goFixed2(0.125), '0.12')
    assert.equal(goFixed2(0.375), '0.38')
    assert.equal(goFixed2(2.675), '2.67')
    assert.equal(goFixed2(100), '100.00')
    assert.equal(goFixed2(1e59), '99999999999999997168788049560464200849936328366177157906432.00')
    assert.throws(() => checkTxFee(10n ** 18n, 1001n, 1000), {
      message: 'tx fee (1001.00 ether) exceeds the configured cap (1000.00 ether)',
    })
    assert.doesNotThrow(() => checkTxFee(10n ** 30n, 21_000n, 0))
  })
})
