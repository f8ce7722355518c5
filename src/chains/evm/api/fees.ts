/**
 * The fee methods of `internal-eth` (coreth internal/ethapi api.go + api.coreth.go, reference cchain.md 3.3):
 * eth_baseFee, eth_maxPriorityFeePerGas, eth_gasPrice, eth_suggestPriceOptions and eth_feeHistory. The tip
 * comes from the gas price oracle (src/chains/evm/gasprice/oracle.ts), the base fee from the backend's estimate
 * for a block built now.
 */

import { checkArity, goJsonKind, invalidArgument } from '../../../rpc/eth-args.js'
import type { EthMethod } from '../../../rpc/eth-types.js'
import { GasPriceOracle } from '../gasprice/oracle.js'
import type { EthBackend } from './backend.js'
import { parseBlockNumber, qty } from './hexutil.js'

/** coreth's minimum slow tip and percentage denominator. */
const MIN_GAS_TIP = 1n
const FEE_DENOMINATOR = 100n

/** math.HexOrDecimal64 (eth_feeHistory's blockCount). */
function parseHexOrDecimal64(v: unknown, index: number): bigint {
  const text = typeof v === 'string' ? v : JSON.stringify(v)
  let n: bigint | undefined
  if (text === '') n = 0n
  else if (text.startsWith('0x') || text.startsWith('0X')) {
    if (/^[0-9a-fA-F]+$/.test(text.slice(2))) n = BigInt(`0x${text.slice(2)}`)
  } else if (/^[0-9]+$/.test(text)) n = BigInt(text)
  if (n === undefined || n >= 1n << 64n)
    throw invalidArgument(index, `invalid hex or decimal integer ${JSON.stringify(text)}`)
  return n
}

/** []float64; null is none. */
function parsePercentiles(v: unknown, index: number): number[] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v))
    throw invalidArgument(index, `json: cannot unmarshal ${goJsonKind(v)} into Go value of type []float64`)
  return v.map((p) => {
    if (p === null) return 0
    if (typeof p !== 'number')
      throw invalidArgument(index, `json: cannot unmarshal ${goJsonKind(p)} into Go value of type float64`)
    return p
  })
}

/** rpc.BlockNumber as an int64 (tags negative: pending -1, latest -2, accepted/finalized -3, safe -4). */
function blockNumberArg(v: unknown, index: number): bigint {
  const sel = parseBlockNumber(v, index)
  if (sel.kind === 'number') return sel.number
  if (sel.kind !== 'tag') return -2n
  switch (sel.tag) {
    case 'earliest':
      return 0n
    case 'pending':
      return -1n
    case 'latest':
      return -2n
    case 'accepted':
    case 'finalized':
      return -3n
    case 'safe':
      return -4n
  }
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b)
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b)

/** `oracle` defaults to one over `backend` with the config's tx-pool-price-limit as the minimum tip. */
export function feeMethods(
  backend: EthBackend,
  oracle: GasPriceOracle = new GasPriceOracle(backend),
): Array<[string, EthMethod]> {
  const noArgs =
    (fn: () => unknown): EthMethod =>
    (params) => {
      checkArity(params, 0, 0)
      return fn()
    }
  return [
    ['eth_baseFee', noArgs(() => qty(backend.estimateNextBaseFee()))],
    ['eth_maxPriorityFeePerGas', noArgs(async () => qty(await oracle.suggestTip()))],
    ['eth_gasPrice', noArgs(async () => qty((await oracle.suggestTip()) + backend.estimateNextBaseFee()))],
    [
      'eth_suggestPriceOptions',
      noArgs(async () => {
        const baseFee = backend.estimateNextBaseFee()
        const tip = await oracle.suggestTip()
        const cfg = backend.config
        const capped = min(tip, BigInt(cfg.priceOptionsMaxTip))
        const slow = max((capped * BigInt(cfg.priceOptionsSlowFeePercentage)) / FEE_DENOMINATOR, MIN_GAS_TIP)
        const fast = (tip * BigInt(cfg.priceOptionsFastFeePercentage)) / FEE_DENOMINATOR
        const price = (t: bigint) => ({ maxPriorityFeePerGas: qty(t), maxFeePerGas: qty(2n * baseFee + t) })
        return { slow: price(slow), normal: price(capped), fast: price(fast) }
      }),
    ],
    [
      'eth_feeHistory',
      async (params) => {
        const count = params.length > 0 ? parseHexOrDecimal64(params[0], 0) : 0n
        const newest = params.length > 1 ? blockNumberArg(params[1], 1) : -2n
        const percentiles = parsePercentiles(params[2], 2)
        checkArity(params, 2, 3)
        const h = await oracle.feeHistory(count, newest, percentiles)
        const out: Record<string, unknown> = { oldestBlock: qty(h.oldestBlock) }
        if (h.reward !== undefined && h.reward.length > 0) out.reward = h.reward.map((row) => row.map(qty))
        if (h.baseFee !== undefined && h.baseFee.length > 0) out.baseFeePerGas = h.baseFee.map(qty)
        out.gasUsedRatio = h.gasUsedRatio ?? null
        return out
      },
    ],
  ]
}
