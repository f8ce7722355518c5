/**
 * A worker thread of recover-ahead.ts: runs sender recoveries (native secp256k1, `fastEcrecover`) on the exact
 * arguments ethereumjs passes to `ecrecover`, which the node worked out from the tx it decoded, and answers with
 * the public key of each (undefined where the signature does not recover: the node finds out and says why
 * itself). It loads no ethereumjs tx code: decoding and hashing happen once, on the node's thread.
 */
import '../../../runtime/polyfill.js'
import { parentPort } from 'node:worker_threads'
import { fastEcrecover } from './native-crypto.js'
import type { RecoverArgs } from './sender-cache.js'

/** per request: the public key the arguments recover to */
export type Answer = Uint8Array | undefined

parentPort?.on('message', (batch: RecoverArgs[]) => {
  const out = batch.map((args): Answer => {
    try {
      return fastEcrecover(...args)
    } catch {
      return undefined
    }
  })
  parentPort?.postMessage(out)
})
// loaded: the node sends work from now on (until then it recovers senders itself)
parentPort?.postMessage('ready')
