/**
 * A frozen ethereumjs transaction's sender and encoding, worked out once per transaction object. ethereumjs
 * recomputes the sender on every `getSenderAddress()` (the signing hash, the recovery, keccak of the public key in
 * pure JS): Firn asks when the tx enters the pool, the executor asks in runTx and again for the receipt, ~25 us each
 * time under load. A frozen tx (ethereumjs' default; every tx Firn decodes) never changes, so its sender never
 * does: it is the last 20 bytes of the native keccak of `getSenderPublicKey()` (ethereumjs' `publicToAddress`),
 * kept by tx object, or the address a recovery worker found for the same bytes (`presetSender`). An unfrozen one is
 * asked afresh as before. Its encoding (`serialize()`) is kept the same way: ethereumjs encodes it again on every
 * call, and a transfer was encoded six times on its way through the node (the pool's size check and entry, the
 * hash, the block body, the tx trie, the executor), ~60 us in all; a tx decoded from a client's strictly canonical
 * bytes keeps those bytes instead (`presetEncoding`), so it is never encoded at all. A typed tx's signing message
 * (`getMessageToSign`, what its sender's recovery hashes) is cut from that kept encoding (signing-message.ts) instead
 * of being encoded again from its fields (~25 us of bigint conversions). Loaded with the Common (common.ts), before
 * any tx is made.
 */
import { AccessList2930Tx, Blob4844Tx, EOACode7702Tx, FeeMarket1559Tx, LegacyTx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { fastKeccak256 } from './native-crypto.js'
import { unsignedPart } from './signing-message.js'

const senders = new WeakMap<object, Uint8Array>()
const encodings = new WeakMap<object, Uint8Array>()

for (const Tx of [LegacyTx, AccessList2930Tx, FeeMarket1559Tx, Blob4844Tx, EOACode7702Tx]) {
  type SignedTx = { getSenderPublicKey(): Uint8Array }
  const proto = Tx.prototype as { getSenderAddress(this: SignedTx): Address }
  const recover = proto.getSenderAddress
  proto.getSenderAddress = function (this: SignedTx): Address {
    if (!Object.isFrozen(this)) return recover.call(this)
    let bytes = senders.get(this)
    if (bytes === undefined) {
      const publicKey = this.getSenderPublicKey()
      if (publicKey.length !== 64) return recover.call(this)
      bytes = fastKeccak256(publicKey).slice(12)
      senders.set(this, bytes)
    }
    // a new Address on the same bytes each time: a caller that changed its copy changes nothing here
    return new Address(bytes.slice())
  }

  const serialize = (Tx.prototype as { serialize(): Uint8Array }).serialize
  ;(Tx.prototype as { serialize(): Uint8Array }).serialize = function (this: object): Uint8Array {
    if (!Object.isFrozen(this)) return serialize.call(this)
    let bytes = encodings.get(this)
    if (bytes === undefined) {
      bytes = serialize.call(this)
      encodings.set(this, bytes)
    }
    // each caller its own copy, as ethereumjs gives
    return bytes.slice()
  }

  if (Tx === LegacyTx) continue
  const proto2718 = Tx.prototype as unknown as { getMessageToSign(this: object): Uint8Array; serialize(): Uint8Array }
  const messageToSign = proto2718.getMessageToSign
  proto2718.getMessageToSign = function (this: { serialize(): Uint8Array }): Uint8Array {
    if (!Object.isFrozen(this)) return messageToSign.call(this)
    return unsignedPart(this.serialize()) ?? messageToSign.call(this)
  }
}

/**
 * The sender of frozen `tx` as found by a recovery worker (recover-ahead.ts) from the arguments ethereumjs'
 * `getSenderPublicKey` passes to `ecrecover` for this tx, so the node need not hash and look up the signature again
 * (~45 us). Ignored for an unfrozen tx, or one whose sender is known already.
 */
export function presetSender(tx: object, sender: Uint8Array): void {
  if (sender.length !== 20 || !Object.isFrozen(tx) || senders.has(tx)) return
  senders.set(tx, sender.slice())
}

/**
 * The bytes frozen `tx` was decoded from, kept as its encoding: ethereumjs would encode it again from its fields on
 * the first `serialize()` (~20 us of bigint and hex conversions per sent tx, for its hash). Only for bytes that passed
 * a strict decoder (exec-rawtx.ts `decodeRawTransaction`: canonical RLP, no leading zeros, nothing after the value,
 * as geth's decoder demands), which makes them the one encoding of the tx's fields, the bytes ethereumjs would
 * produce. Ignored for an unfrozen tx, or one whose encoding is known already.
 */
export function presetEncoding(tx: object, raw: Uint8Array): void {
  if (!Object.isFrozen(tx) || encodings.has(tx)) return
  encodings.set(tx, raw.slice())
}
