/**
 * The `txpool` namespace (coreth TxPoolAPI): content, contentFrom, status and inspect, shaped by the tx pool's
 * formatters (pending txs as NewRPCTransaction with no block; addresses checksummed, nonces decimal).
 */

import { checkArity } from '../../../rpc/eth-args.js'
import type { EthMethod } from '../../../rpc/eth-types.js'
import { txpoolContentFromJson, txpoolContentJson, txpoolInspectJson, txpoolStatusJson } from '../txpool/format.js'
import type { EthBackend } from './backend.js'
import { hex, parseAddress } from './hexutil.js'

export function txpoolMethods(backend: EthBackend): Array<[string, EthMethod]> {
  const pool = backend.pool
  const noArgs =
    (f: () => unknown): EthMethod =>
    (p) => {
      checkArity(p, 0, 0)
      return f()
    }
  return [
    ['txpool_content', noArgs(() => txpoolContentJson(pool))],
    [
      'txpool_contentFrom',
      (p) => {
        const address = p.length > 0 ? parseAddress(p[0], 0) : undefined
        checkArity(p, 1, 1)
        return txpoolContentFromJson(pool, hex(address!))
      },
    ],
    ['txpool_status', noArgs(() => txpoolStatusJson(pool))],
    ['txpool_inspect', noArgs(() => txpoolInspectJson(pool))],
  ]
}
