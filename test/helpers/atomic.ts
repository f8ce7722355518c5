/**
 * Atomic txs against a real node, the way a wallet builds them with avalanchejs 5.2.0: read the UTXOs waiting for
 * a chain (`avax.getUTXOs`), build and sign an import or an export, issue it (`avax.issueTx`, hex with checksum),
 * poll `avax.getAtomicTxStatus` until it is final. `base` is a chain's base path (`/ext/bc/C`, `/ext/bc/D`).
 */
import { createHash } from 'node:crypto'
import { hexToBytes } from '@ethereumjs/util'
import { shortAddressOfKey } from '../../src/chains/evm/atomic/sign.js'
import { EWOQ_ADDRESS, EWOQ_PRIVATE_KEY } from '../../src/chains/evm/rules/presets.js'
import { ajs, type Context, getContextFromURI, type UnsignedTx, type Utxo } from './avalanchejs.js'
import type { RpcReply } from './firn-process.js'

/** What the helpers need of a node: its JSON-RPC (a FirnProcess or a five-node member). */
export interface RpcNode {
  url: string
  rpc(path: string, method: string, params?: unknown): Promise<RpcReply>
}

export const EWOQ_KEY = hexToBytes(`0x${EWOQ_PRIVATE_KEY}`)
/** the test key's 20-byte short address (what X-chain UTXOs are owned by) */
export const EWOQ_SHORT = hexToBytes(shortAddressOfKey(EWOQ_KEY) as `0x${string}`)
export const EWOQ_EVM = hexToBytes(EWOQ_ADDRESS as `0x${string}`)

/** `hex` encoding: 0x + the bytes + the last 4 bytes of their SHA-256 */
export function hexWithChecksum(bytes: Uint8Array): string {
  const sum = createHash('sha256').update(bytes).digest().subarray(28)
  return `0x${Buffer.concat([Buffer.from(bytes), sum]).toString('hex')}`
}

/** the body of a checksummed hex string */
export const withoutChecksum = (hex: string): Uint8Array => hexToBytes(hex.slice(0, -8) as `0x${string}`)

export function result<T>(r: RpcReply): T {
  if (r.body.error !== undefined) throw new Error(`${r.body.error.message}`)
  return r.body.result as T
}

export const contextOf = (node: RpcNode): Promise<Context> => getContextFromURI(node.url)

/** `<alias>-local1...` of the test key */
export const bech32Of = (ctx: Context, alias: string, short: Uint8Array = EWOQ_SHORT): string =>
  ajs.utils.format(alias, ctx.hrp, short)

/** Every UTXO `source` exported to the chain at `base` for the address, through every page. */
export async function utxosFor(
  node: RpcNode,
  base: string,
  alias: string,
  source: string,
  ctx: Context,
  short: Uint8Array = EWOQ_SHORT,
): Promise<Utxo[]> {
  const address = bech32Of(ctx, alias, short)
  const out = new Map<string, Utxo>()
  let startIndex: { address: string; utxo: string } | undefined
  for (;;) {
    const page = result<{ numFetched: string; utxos: string[]; endIndex: { address: string; utxo: string } }>(
      await node.rpc(`${base}/avax`, 'avax.getUTXOs', {
        addresses: [address],
        sourceChain: source,
        limit: 1024,
        ...(startIndex === undefined ? {} : { startIndex }),
      }),
    )
    const before = out.size
    for (const hex of page.utxos) {
      const utxo = ajs.utils.getManagerForVM('EVM').unpack(withoutChecksum(hex), ajs.Utxo) as Utxo
      out.set(utxo.ID(), utxo)
    }
    if (Number(page.numFetched) < 1024 || out.size === before) return [...out.values()]
    startIndex = page.endIndex
  }
}

/** Signs with the test key and returns the signed bytes. */
export async function signed(tx: UnsignedTx, keys: Uint8Array[] = [EWOQ_KEY]): Promise<Uint8Array> {
  await ajs.addTxSignatures({ unsignedTx: tx, privateKeys: keys })
  return tx.getSignedTx().toBytes()
}

/** The base fee a wallet passes avalanchejs: nAVAX per gas, at least 1 (the local networks' base fee is 1 wei). */
export async function baseFeeNAvax(node: RpcNode, base: string): Promise<bigint> {
  const wei = BigInt(result<string>(await node.rpc(`${base}/rpc`, 'eth_baseFee', [])))
  const n = (wei + 999_999_999n) / 1_000_000_000n
  return n > 0n ? n : 1n
}

/** The nonce an export from the test key's EVM address takes (its accepted nonce). */
export async function evmNonce(node: RpcNode, base: string, address = EWOQ_ADDRESS): Promise<bigint> {
  return BigInt(result<string>(await node.rpc(`${base}/rpc`, 'eth_getTransactionCount', [address, 'latest'])))
}

export async function evmBalance(node: RpcNode, base: string, address = EWOQ_ADDRESS): Promise<bigint> {
  return BigInt(result<string>(await node.rpc(`${base}/rpc`, 'eth_getBalance', [address, 'latest'])))
}

/** An import into the chain (ID `chainId`) at `base` of `utxos` from `sourceChainId`, to the test key's EVM address. */
export async function buildImport(
  node: RpcNode,
  ctx: Context,
  base: string,
  chainId: string,
  sourceChainId: string,
  utxos: Utxo[],
  to: Uint8Array = EWOQ_EVM,
): Promise<Uint8Array> {
  const tx = ajs.evm.newImportTxFromBaseFee(
    { ...ctx, cBlockchainID: chainId },
    to,
    [EWOQ_SHORT],
    utxos,
    sourceChainId,
    await baseFeeNAvax(node, base),
  )
  return signed(tx)
}

/** An export of `amount` nAVAX from the test key's EVM address on `chainId` to `destinationChainId`. */
export async function buildExport(
  node: RpcNode,
  ctx: Context,
  base: string,
  chainId: string,
  destinationChainId: string,
  amount: bigint,
  to: Uint8Array = EWOQ_SHORT,
): Promise<Uint8Array> {
  const tx = ajs.evm.newExportTxFromBaseFee(
    { ...ctx, cBlockchainID: chainId },
    await baseFeeNAvax(node, base),
    amount,
    destinationChainId,
    EWOQ_EVM,
    [to],
    await evmNonce(node, base),
  )
  return signed(tx)
}

/** `avax.issueTx`: the tx ID, or throws the node's error text. */
export async function issue(node: RpcNode, base: string, bytes: Uint8Array): Promise<string> {
  return result<{ txID: string }>(
    await node.rpc(`${base}/avax`, 'avax.issueTx', { tx: hexWithChecksum(bytes), encoding: 'hex' }),
  ).txID
}

/** Polls `avax.getAtomicTxStatus` until it is neither Processing nor Unknown (or the deadline). */
export async function finalStatus(
  node: RpcNode,
  base: string,
  txID: string,
  timeoutMs = 20_000,
): Promise<{ status: string; blockHeight?: string }> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const s = result<{ status: string; blockHeight?: string }>(
      await node.rpc(`${base}/avax`, 'avax.getAtomicTxStatus', { txID }),
    )
    if ((s.status !== 'Processing' && s.status !== 'Unknown') || Date.now() > deadline) return s
    await new Promise((r) => setTimeout(r, 50))
  }
}
