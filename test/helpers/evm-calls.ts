/** eth_call on a test chain (test/helpers/evm-chain.ts) through the chain's own method, and contracts to call. */
import { bigIntToBytes, bytesToHex, generateAddress, hexToBytes } from '@ethereumjs/util'
import { execMethods } from '../../src/chains/evm/api/exec.js'
import { EWOQ_ADDRESS } from '../../src/chains/evm/rules/presets.js'
import type { CallContext } from '../../src/rpc/eth-types.js'
import type { TestChain } from './evm-chain.js'

/** a call's context as an HTTP request from 127.0.0.1 gives it */
export const httpCall: CallContext = {
  signal: new AbortController().signal,
  transport: 'http',
  remoteAddress: '127.0.0.1',
  connection: undefined,
}

/** the chain's `eth_call` */
export function ethCall(chain: TestChain): (params: unknown[]) => Promise<unknown> {
  const method = new Map(execMethods(chain.vm, { suggestTip: async () => 1n })).get('eth_call')!
  return (params) => Promise.resolve(method(params, httpCall))
}

/** Deploys `code` (hex, no 0x) as a contract's runtime code from EWOQ in a block of its own; its address. */
export async function deployRuntime(chain: TestChain, code: string): Promise<string> {
  const len = (code.length / 2).toString(16).padStart(2, '0')
  // PUSH1 len PUSH1 12 PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN, then the runtime
  const init = hexToBytes(`0x60${len}600c60003960${len}6000f3${code}`)
  const nonce = await chain.vm.pool.nonce(EWOQ_ADDRESS)
  await chain.mine([await chain.signTransfer({ data: init, gasLimit: 300_000n, value: 0n })])
  return bytesToHex(generateAddress(hexToBytes(EWOQ_ADDRESS), bigIntToBytes(nonce)))
}
