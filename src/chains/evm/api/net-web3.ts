/**
 * The `net` and `web3` namespaces as coreth serves them (reference/cchain.md 3.1): net_version is the EVM chain
 * id in decimal, the node always listens and has no EVM peers; web3_clientVersion is the node's version.
 */
import { keccak_256 } from '@noble/hashes/sha3.js'
import { checkArity } from '../../../rpc/eth-args.js'
import type { EthMethod } from '../../../rpc/eth-types.js'
import type { EthBackend } from './backend.js'
import { hex, parseBytes } from './hexutil.js'

export function netWeb3Methods(backend: EthBackend): Array<[string, EthMethod]> {
  const noArgs =
    (f: () => unknown): EthMethod =>
    (p) => {
      checkArity(p, 0, 0)
      return f()
    }
  return [
    ['net_version', noArgs(() => backend.chainId.toString())],
    ['net_listening', noArgs(() => true)],
    ['net_peerCount', noArgs(() => '0x0')],
    ['web3_clientVersion', noArgs(() => backend.clientVersion)],
    [
      'web3_sha3',
      (p) => {
        const data = p.length > 0 ? parseBytes(p[0], 0) : new Uint8Array(0)
        checkArity(p, 1, 1)
        return hex(keccak_256(data))
      },
    ],
  ]
}
