/**
 * A worker thread of recover-ahead.ts: decodes raw transactions and recovers their senders the way the node's
 * own ethereumjs would (a Common of the same rules, native secp256k1), and answers with every recovery it ran
 * (ethereumjs' exact arguments and the public key, which the node puts in its sender cache) and the sender's
 * address (ethereumjs' `getSenderAddress`, after all its checks of the signature).
 */
import '../../../runtime/polyfill.js'
import { parentPort } from 'node:worker_threads'
import type { Common } from '@ethereumjs/common'
import { createTxFromRLP } from '@ethereumjs/tx'
import { createEvmCommon } from './common.js'
import { fastEcrecover } from './native-crypto.js'
import type { RecoverArgs } from './sender-cache.js'

export interface RecoverRequest {
  chainId: string
  raw: Uint8Array
}
export type Recovered = { args: RecoverArgs; publicKey: Uint8Array }[]
/** per request: the recoveries it ran, and the sender's address when the tx was a valid signed one */
export interface Answer {
  ran: Recovered
  sender?: Uint8Array
}

let ran: Recovered = []
const recordingRecover = (...args: RecoverArgs): Uint8Array => {
  const publicKey = fastEcrecover(...args)
  ran.push({ args, publicKey })
  return publicKey
}

const commons = new Map<string, Common>()
function commonOf(chainId: string): Common {
  let common = commons.get(chainId)
  if (common === undefined) {
    common = createEvmCommon(BigInt(chainId), { ecrecover: recordingRecover })
    commons.set(chainId, common)
  }
  return common
}

parentPort?.on('message', (batch: RecoverRequest[]) => {
  const out = batch.map(({ chainId, raw }): Answer => {
    ran = []
    try {
      const sender = createTxFromRLP(raw, { common: commonOf(chainId) }).getSenderAddress().bytes
      return { ran, sender }
    } catch {
      // not a valid signed tx: the node finds out and says why itself
      return { ran }
    }
  })
  parentPort?.postMessage(out)
})
// loaded: the node sends work from now on (until then it recovers senders itself)
parentPort?.postMessage('ready')
