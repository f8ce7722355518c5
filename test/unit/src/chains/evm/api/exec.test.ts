import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToBytes, bytesToHex, generateAddress, hexToBytes } from '@ethereumjs/util'
import { Interface, Wallet } from 'ethers'
import type { EthBackend } from '../../../../../../src/chains/evm/api/backend.js'
import { execMethods } from '../../../../../../src/chains/evm/api/exec.js'
import { unpackRevert } from '../../../../../../src/chains/evm/api/exec-revert.js'
import { EWOQ_ADDRESS, EWOQ_PRIVATE_KEY } from '../../../../../../src/chains/evm/rules/presets.js'
import type { CallContext, EthMethod } from '../../../../../../src/rpc/eth-types.js'
import { FirnError } from '../../../../../../src/runtime/errors.js'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'
import { compile } from '../../../../../helpers/solc.js'

const ctx: CallContext = {
  signal: new AbortController().signal,
  transport: 'http',
  remoteAddress: '127.0.0.1',
  connection: undefined,
}
const OTHER = `0x${'42'.repeat(20)}`
const ZERO_SLOT = `0x${'00'.repeat(32)}`
const counterAbi = new Interface(compile('Counter').abi as never)
const tokenAbi = new Interface(compile('Token').abi as never)

function methodTable(backend: EthBackend): Map<string, EthMethod> {
  return new Map(execMethods(backend, { suggestTip: async () => 1n }))
}

async function rpcError(p: unknown): Promise<FirnError | Error> {
  try {
    await p
  } catch (err) {
    return err as Error
  }
  assert.fail('expected an error')
}

describe('eth execution methods', () => {
  let chain: TestChain
  let m: Map<string, EthMethod>
  let counter: string
  let token: string
  const call = (name: string, ...params: unknown[]) => Promise.resolve(m.get(name)!(params, ctx))

  async function deploy(name: 'Counter' | 'Token', iface: Interface, arg: bigint): Promise<string> {
    const nonce = await chain.vm.pool.nonce(EWOQ_ADDRESS)
    const data = hexToBytes(`${compile(name).bytecode}${iface.encodeDeploy([arg]).slice(2)}` as `0x${string}`)
    await chain.mine([await chain.signTransfer({ data, gasLimit: 2_000_000n, value: 0n })])
    return bytesToHex(generateAddress(hexToBytes(EWOQ_ADDRESS), bigIntToBytes(nonce)))
  }

  async function receiptOf(hash: string) {
    const loc = await chain.vm.core.getTxLocation(hexToBytes(hash as `0x${string}`))
    assert.ok(loc, `tx ${hash} not mined`)
    const receipts = await chain.vm.core.getReceipts(loc.blockHash)
    return receipts!.find((r) => bytesToHex(r.txHash) === hash)!
  }

  before(async () => {
    chain = await openTestChain()
    m = methodTable(chain.vm)
    counter = await deploy('Counter', counterAbi, 5n)
    token = await deploy('Token', tokenAbi, 1000n)
  })
  after(() => chain.close())

  describe('eth_call', () => {
    it('calls a view function', async () => {
      const out = await call('eth_call', { to: counter, data: counterAbi.encodeFunctionData('count') }, 'latest')
      assert.equal(out, `0x${'0'.repeat(63)}5`)
      const bal = await call('eth_call', {
        to: token,
        data: tokenAbi.encodeFunctionData('balanceOf', [EWOQ_ADDRESS]),
      })
      assert.equal(BigInt(bal as string), 1000n)
    })

    it('reports a revert reason with code 3 and the revert data', async () => {
      const err = (await rpcError(
        call('eth_call', { to: counter, data: counterAbi.encodeFunctionData('failWithReason') }),
      )) as FirnError
      assert.ok(err instanceof FirnError)
      assert.equal(err.code, 3)
      assert.equal(err.message, 'execution reverted: counter: always fails')
      assert.equal(
        err.data,
        new Interface(['error Error(string)']).encodeErrorResult('Error', ['counter: always fails']),
      )
    })

    it('passes custom error data through for ethers/viem to decode', async () => {
      const err = (await rpcError(
        call('eth_call', { from: OTHER, to: counter, data: counterAbi.encodeFunctionData('onlyOwnerReset') }),
      )) as FirnError
      assert.equal(err.code, 3)
      assert.equal(err.message, 'execution reverted')
      const parsed = counterAbi.parseError(err.data as string)
      assert.ok(parsed)
      assert.equal(parsed.name, 'NotOwner')
      assert.equal((parsed.args[0] as string).toLowerCase(), OTHER)
      assert.equal((parsed.args[1] as string).toLowerCase(), EWOQ_ADDRESS)
    })

    it('decodes Panic codes as abi.UnpackRevert', () => {
      const panic = new Interface(['error Panic(uint256)'])
      assert.equal(unpackRevert(hexToBytes(panic.encodeErrorResult('Panic', [1]) as `0x${string}`)), 'assert(false)')
      assert.equal(
        unpackRevert(hexToBytes(panic.encodeErrorResult('Panic', [0x11]) as `0x${string}`)),
        'arithmetic underflow or overflow',
      )
      assert.equal(
        unpackRevert(hexToBytes(panic.encodeErrorResult('Panic', [0x99]) as `0x${string}`)),
        'unknown panic code: 0x99',
      )
      assert.equal(unpackRevert(hexToBytes('0x08c379a0')), undefined)
    })

    it('gives geth texts for gas failures', async () => {
      const data = counterAbi.encodeFunctionData('increment', ['x'])
      const oog = await rpcError(call('eth_call', { from: EWOQ_ADDRESS, to: counter, data, gas: '0x7530' }))
      assert.ok(!(oog instanceof FirnError))
      assert.equal(oog.message, 'out of gas')
      const low = await rpcError(call('eth_call', { to: counter, data, gas: '0x64' }))
      assert.match(low.message, /^err: intrinsic gas too low: have 100, want \d+ \(supplied gas 100\)$/)
      const poor = await rpcError(call('eth_call', { from: OTHER, to: counter, data, gasPrice: '0x10' }))
      assert.match(
        poor.message,
        /^err: insufficient funds for gas \* price \+ value: address 0x4242424242424242424242424242424242424242 have 0 want 800000000 \(supplied gas 50000000\)$/,
      )
    })

    it('names invalid opcodes and stack underflows', async () => {
      const at = `0x${'77'.repeat(20)}`
      const invalid = await rpcError(call('eth_call', { to: at }, 'latest', { [at]: { code: '0xfe' } }))
      assert.equal(invalid.message, 'invalid opcode: INVALID')
      const undefinedOp = await rpcError(call('eth_call', { to: at }, 'latest', { [at]: { code: '0xef' } }))
      assert.equal(undefinedOp.message, 'invalid opcode: opcode 0xef not defined')
      const under = await rpcError(call('eth_call', { to: at }, 'latest', { [at]: { code: '0x600101' } }))
      assert.equal(under.message, 'stack underflow (1 <=> 2)')
    })

    it('applies state overrides', async () => {
      const data = counterAbi.encodeFunctionData('count')
      const diff = await call('eth_call', { to: counter, data }, 'latest', {
        [counter]: { stateDiff: { [ZERO_SLOT]: `0x${'0'.repeat(62)}2a` } },
      })
      assert.equal(BigInt(diff as string), 42n)
      const replaced = await call('eth_call', { to: counter, data: counterAbi.encodeFunctionData('owner') }, 'latest', {
        [counter]: { state: { [ZERO_SLOT]: `0x${'0'.repeat(62)}07` } },
      })
      assert.equal(BigInt(replaced as string), 0n, 'state replaces the whole storage (owner slot cleared)')
      // a rich sender with code that returns its own balance: SELFBALANCE PUSH0 MSTORE PUSH1 32 PUSH0 RETURN
      const bal = await call('eth_call', { to: OTHER }, 'latest', {
        [OTHER]: { balance: '0x1234', code: '0x475f5260205ff3' },
      })
      assert.equal(BigInt(bal as string), 0x1234n)
      const both = await rpcError(
        call('eth_call', { to: counter, data }, 'latest', { [counter]: { state: {}, stateDiff: {} } }),
      )
      assert.match(both.message, /^account 0x[0-9a-fA-F]{40} has both 'state' and 'stateDiff'$/)
      const bad = (await rpcError(
        call('eth_call', { to: counter }, 'latest', { [counter]: { nonce: '7' } }),
      )) as FirnError
      assert.equal(bad.code, -32602)
      assert.equal(
        bad.message,
        'invalid argument 2: json: cannot unmarshal hex string without 0x prefix into Go struct field OverrideAccount.nonce of type hexutil.Uint64',
      )
    })

    it('applies block overrides and runs `pending` as the next block', async () => {
      // NUMBER PUSH0 MSTORE PUSH1 32 PUSH0 RETURN
      const at = `0x${'78'.repeat(20)}`
      const code = { [at]: { code: '0x435f5260205ff3' } }
      const head = chain.vm.lastAccepted().header.number
      assert.equal(BigInt((await call('eth_call', { to: at }, 'latest', code)) as string), head)
      assert.equal(BigInt((await call('eth_call', { to: at }, 'pending', code)) as string), head + 1n)
      assert.equal(BigInt((await call('eth_call', { to: at }, 'latest', code, { number: '0x99' })) as string), 0x99n)
    })

    it('checks its arguments as geth does', async () => {
      const fees = await rpcError(call('eth_call', { to: counter, gasPrice: '0x1', maxFeePerGas: '0x1' }))
      assert.equal(fees.message, 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
      const many = (await rpcError(call('eth_call', {}, 'latest', null, null, 1))) as FirnError
      assert.equal(many.message, 'too many arguments, want at most 4')
      const none = (await rpcError(call('eth_call'))) as FirnError
      assert.equal(none.message, 'missing value for required argument 0')
      const missing = await rpcError(call('eth_call', { to: counter }, '0xffff'))
      assert.equal(missing.message, 'cannot query unfinalized data')
    })
  })

  describe('eth_estimateGas', () => {
    it('estimates a plain transfer at 21000', async () => {
      assert.equal(await call('eth_estimateGas', { from: EWOQ_ADDRESS, to: OTHER, value: '0x1' }), '0x5208')
    })

    it('estimates a contract call that then succeeds with that gas', async () => {
      const data = counterAbi.encodeFunctionData('increment', ['estimated'])
      const est = BigInt((await call('eth_estimateGas', { from: EWOQ_ADDRESS, to: counter, data })) as string)
      const used = BigInt(
        ((await call('eth_callDetailed', { from: EWOQ_ADDRESS, to: counter, data }, 'latest')) as { gas: number }).gas,
      )
      assert.ok(est >= used && est <= (used * 1016n) / 1000n, `estimate ${est}, used ${used}`)
      // one less than the gas used runs out of gas
      const tight = await rpcError(
        call('eth_call', { from: EWOQ_ADDRESS, to: counter, data, gas: `0x${(used - 1n).toString(16)}` }),
      )
      assert.equal(tight.message, 'out of gas')
      const tx = await chain.signTransfer({
        to: counter,
        data: hexToBytes(data as `0x${string}`),
        gasLimit: est,
        value: 0n,
      })
      await chain.mine([tx])
      const r = await receiptOf(bytesToHex(tx.hash()))
      assert.equal(r.status, 1)
      assert.equal(r.gasUsed, used)
    })

    it('estimates a contract creation', async () => {
      const data = `${compile('Counter').bytecode}${counterAbi.encodeDeploy([1n]).slice(2)}`
      const est = BigInt((await call('eth_estimateGas', { from: EWOQ_ADDRESS, data })) as string)
      const tx = await chain.signTransfer({ data: hexToBytes(data as `0x${string}`), gasLimit: est, value: 0n })
      await chain.mine([tx])
      const r = await receiptOf(bytesToHex(tx.hash()))
      assert.equal(r.status, 1)
      assert.equal(r.contractAddress.length, 20)
    })

    it('reports reverts and allowance failures with geth texts', async () => {
      const revert = (await rpcError(
        call('eth_estimateGas', { to: counter, data: counterAbi.encodeFunctionData('failWithReason') }),
      )) as FirnError
      assert.equal(revert.code, 3)
      assert.equal(revert.message, 'execution reverted: counter: always fails')
      const data = counterAbi.encodeFunctionData('increment', ['x'])
      const allowance = await rpcError(
        call('eth_estimateGas', { from: EWOQ_ADDRESS, to: counter, data, gas: '0x61a8' }),
      )
      assert.equal(allowance.message, 'gas required exceeds allowance (25000)')
      const poor = await rpcError(call('eth_estimateGas', { from: OTHER, to: counter, data, maxFeePerGas: '0x5' }))
      assert.equal(poor.message, 'insufficient funds for transfer')
      const value = await rpcError(call('eth_estimateGas', { from: OTHER, to: EWOQ_ADDRESS, value: '0x10' }))
      assert.equal(
        value.message,
        // args.gas defaults to the block's limit, capped by rpc-gas-cap; buyGas fails before the transfer check
        'failed with 50000000 gas: insufficient funds for gas * price + value: address 0x4242424242424242424242424242424242424242 have 0 want 16',
      )
    })
  })

  describe('eth_createAccessList', () => {
    it('lists the slots a storage write touches', async () => {
      const data = counterAbi.encodeFunctionData('increment', ['acl'])
      const res = (await call('eth_createAccessList', { from: EWOQ_ADDRESS, to: counter, data })) as {
        accessList: { address: string; storageKeys: string[] }[]
        gasUsed: string
        error?: string
      }
      assert.deepEqual(Object.keys(res), ['accessList', 'gasUsed'])
      assert.equal(res.accessList.length, 1)
      assert.equal(res.accessList[0]!.address, counter)
      assert.ok(res.accessList[0]!.storageKeys.includes(ZERO_SLOT))
      assert.equal(res.accessList[0]!.storageKeys.length, 2, 'count and credits[sender]')
      // the list makes the call cheaper than without it? no: it prices the slots up front; it must still succeed
      const tx = await chain.signTransfer({
        to: counter,
        data: hexToBytes(data as `0x${string}`),
        gasLimit: BigInt(res.gasUsed),
        value: 0n,
      })
      await chain.mine([tx])
      assert.equal((await receiptOf(bytesToHex(tx.hash()))).status, 1)
    })

    it('reports a failing call in `error`', async () => {
      const res = (await call('eth_createAccessList', {
        from: EWOQ_ADDRESS,
        to: counter,
        data: counterAbi.encodeFunctionData('failWithReason'),
      })) as Record<string, unknown>
      assert.deepEqual(Object.keys(res), ['accessList', 'error', 'gasUsed'])
      assert.equal(res.error, 'execution reverted')
      assert.deepEqual(res.accessList, [])
    })
  })

  describe('eth_callDetailed', () => {
    it('returns gas and errCode as plain numbers', async () => {
      const ok = (await call(
        'eth_callDetailed',
        { to: counter, data: counterAbi.encodeFunctionData('count') },
        'latest',
      )) as Record<string, unknown>
      assert.deepEqual(Object.keys(ok), ['gas', 'errCode', 'err', 'returnData'])
      assert.equal(typeof ok.gas, 'number')
      assert.ok((ok.gas as number) > 21_000)
      assert.equal(ok.errCode, 0)
      assert.equal(ok.err, '')
      assert.equal((ok.returnData as string).length, 66)
      const reverted = (await call(
        'eth_callDetailed',
        { to: counter, data: counterAbi.encodeFunctionData('failWithReason') },
        'latest',
      )) as Record<string, unknown>
      assert.equal(reverted.errCode, 3)
      assert.equal(reverted.err, 'execution reverted: counter: always fails')
      assert.match(reverted.returnData as string, /^0x08c379a0/)
      const missing = await rpcError(call('eth_callDetailed', { to: counter }))
      assert.equal(missing.message, 'missing value for required argument 1')
    })
  })

  describe('eth_sendRawTransaction', () => {
    it('accepts EIP-155 legacy and 1559 txs, which are then mined', async () => {
      const legacy = await chain.signTransfer({ type: 0, to: OTHER, value: 7n })
      assert.ok(legacy.v === 2n * chain.vm.chainId + 35n || legacy.v === 2n * chain.vm.chainId + 36n)
      const h1 = await call('eth_sendRawTransaction', bytesToHex(legacy.serialize()))
      assert.equal(h1, bytesToHex(legacy.hash()))
      const dyn = await chain.signTransfer({ type: 2, to: OTHER, value: 8n, nonce: legacy.nonce + 1n })
      const h2 = await call('eth_sendRawTransaction', bytesToHex(dyn.serialize()))
      assert.equal(h2, bytesToHex(dyn.hash()))
      await chain.mine()
      assert.equal((await receiptOf(h1 as string)).status, 1)
      assert.equal((await receiptOf(h2 as string)).status, 1)
      const again = await rpcError(call('eth_sendRawTransaction', bytesToHex(dyn.serialize())))
      assert.match(again.message, /^nonce too low/)
    })

    it('refuses unprotected legacy txs unless allowed', async () => {
      const wallet = new Wallet(`0x${EWOQ_PRIVATE_KEY}`)
      const nonce = await chain.vm.pool.nonce(EWOQ_ADDRESS)
      const raw = await wallet.signTransaction({
        type: 0,
        chainId: 0n,
        nonce: Number(nonce),
        gasPrice: 10n ** 12n,
        gasLimit: 21_000n,
        to: OTHER,
        value: 1n,
      })
      const err = await rpcError(call('eth_sendRawTransaction', raw))
      assert.equal(err.message, 'only replay-protected (EIP-155) transactions allowed over RPC')
      const open = await openTestChain({ config: { allowUnprotectedTxs: true } })
      try {
        const hash = await methodTable(open.vm).get('eth_sendRawTransaction')!([raw], ctx)
        assert.match(hash as string, /^0x[0-9a-f]{64}$/)
      } finally {
        await open.close()
      }
    })

    it('gives geth decoding texts for malformed input', async () => {
      const send = (raw: string) => rpcError(call('eth_sendRawTransaction', raw)).then((e) => e.message)
      assert.equal(await send('0x'), 'typed transaction too short')
      assert.equal(await send('0x02'), 'typed transaction too short')
      assert.equal(await send('0x05c0'), 'transaction type not supported')
      assert.equal(await send('0x80'), 'rlp: expected input list for types.LegacyTx')
      assert.equal(await send('0xc0'), 'rlp: too few elements for types.LegacyTx')
      assert.equal(await send('0x02c0'), 'rlp: too few elements for types.DynamicFeeTx')
      assert.equal(await send('0xc5'), 'rlp: value size exceeds available input length')
      const zeroNonce = bytesToHex(RLP.encode([new Uint8Array([0]), 1, 21000, new Uint8Array(20), 1, '0x', 27, 1, 1]))
      assert.equal(
        await send(zeroNonce),
        'rlp: non-canonical integer (leading zero bytes) for uint64, decoding into (types.LegacyTx).Nonce',
      )
      const shortTo = bytesToHex(RLP.encode([1, 1, 21000, new Uint8Array(19), 1, '0x', 27, 1, 1]))
      assert.equal(
        await send(shortTo),
        'rlp: input string too short for common.Address, decoding into (types.LegacyTx).To',
      )
      const tx = await chain.signTransfer({ to: OTHER })
      assert.equal(await send(`${bytesToHex(tx.serialize())}00`), 'rlp: input contains more than one value')
      const badList = bytesToHex(
        new Uint8Array([2, ...RLP.encode([1, 1, 1, 1, 21000, new Uint8Array(20), 1, '0x', [1], 1, 1, 1])]),
      )
      assert.equal(
        await send(badList),
        'rlp: expected input list for types.AccessTuple, decoding into (types.DynamicFeeTx).AccessList[0]',
      )
      const hexErr = (await rpcError(call('eth_sendRawTransaction', 'zz'))) as FirnError
      assert.equal(hexErr.code, -32602)
      assert.equal(
        hexErr.message,
        'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Bytes',
      )
    })
  })
})

describe('eth_call deadline', () => {
  it('aborts a long call at api-max-duration', async () => {
    const chain = await openTestChain({ config: { apiMaxDurationMs: 50 } })
    try {
      const m = methodTable(chain.vm)
      const at = `0x${'79'.repeat(20)}`
      // JUMPDEST PUSH0 JUMP: loops until the gas cap
      const started = Date.now()
      const err = await rpcError(
        Promise.resolve(m.get('eth_call')!([{ to: at }, 'latest', { [at]: { code: '0x5b5f56' } }], ctx)),
      )
      assert.equal(err.message, 'execution aborted (timeout = 50ms)')
      assert.ok(Date.now() - started < 5_000)
    } finally {
      await chain.close()
    }
  })
})
