/**
 * Argument decoding for read.ts (geth's positional JSON decoding: each given argument, then the count) and
 * coreth's historical proof window (stateQueryBlockNumberAllowed) for eth_getProof.
 */
import { checkArity, goJsonKind, invalidArgument } from '../../../rpc/eth-args.js'
import type { EthBackend, ResolvedBlock } from './backend.js'
import { type BlockSelector, hex, parseBool, parseHash, parseUint } from './hexutil.js'

export type Decoder<T> = (v: unknown, i: number) => T

/** geth's order: decode each given argument (up to the method's count), then check the count. */
export function decodeArgs<T extends unknown[]>(params: unknown[], decoders: { [K in keyof T]: Decoder<T[K]> }): T {
  const out: unknown[] = []
  const n = Math.min(params.length, decoders.length)
  for (let i = 0; i < n; i++) out.push((decoders[i] as Decoder<unknown>)(params[i], i))
  checkArity(params, decoders.length, decoders.length)
  return out as T
}

/** A JSON null for a Go bool leaves it false. */
export const fullTxArg: Decoder<boolean> = (v, i) => (v === null ? false : parseBool(v, i))

/** hexutil.Uint (a tx or uncle index). */
export const indexArg: Decoder<bigint> = parseUint

/** A Go `string` argument. */
export const stringArg: Decoder<string> = (v, i) => {
  if (typeof v !== 'string')
    throw invalidArgument(i, `json: cannot unmarshal ${goJsonKind(v)} into Go value of type string`)
  return v
}

/** A Go `[]string` argument (null is an empty list). */
export const stringsArg: Decoder<string[]> = (v, i) => {
  if (v === null) return []
  if (!Array.isArray(v))
    throw invalidArgument(i, `json: cannot unmarshal ${goJsonKind(v)} into Go value of type []string`)
  return v.map((s) => {
    if (typeof s !== 'string')
      throw invalidArgument(i, `json: cannot unmarshal ${goJsonKind(s)} into Go value of type string`)
    return s
  })
}

export const hashSelector: Decoder<BlockSelector> = (v, i) => ({
  kind: 'hash',
  hash: parseHash(v, i),
  requireCanonical: false,
})

/** ethapi decodeHash: optional 0x, odd length allowed, at most 32 bytes, left-padded. */
export function decodeStorageKey(s: string): { key: Uint8Array; length: number } {
  let digits = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s
  if (digits.length % 2 === 1) digits = `0${digits}`
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new Error('hex string invalid')
  if (digits.length > 64) throw new Error('hex string too long, want at most 32 bytes')
  return { key: Uint8Array.from(Buffer.from(digits.padStart(64, '0'), 'hex')), length: digits.length / 2 }
}

/** historical proof window (coreth stateQueryBlockNumberAllowed); null = unlimited. */
function proofWindow(backend: EthBackend): bigint | null {
  const c = backend.config
  if (!c.pruningEnabled && c.historicalProofQueryWindow === 0) return null
  return BigInt(c.pruningEnabled ? c.stateHistory : c.historicalProofQueryWindow)
}

/** coreth stateQueryBlockNumberAllowed, wrapped as `historical proof query not allowed: ...`. */
export async function checkProofWindow(backend: EthBackend, sel: BlockSelector): Promise<void> {
  const window = proofWindow(backend)
  if (window === null) return
  const lastAccepted = backend.lastAccepted().header.number
  let number: bigint
  if (sel.kind === 'tag') {
    // tags are negative rpc.BlockNumbers, huge as uint64; earliest is 0 in coreth
    if (sel.tag !== 'earliest') return
    number = 0n
  } else if (sel.kind === 'number') {
    number = sel.number
  } else {
    let block: ResolvedBlock | null
    try {
      block = await backend.resolveBlock(sel)
    } catch (err) {
      throw new Error(`historical proof query not allowed: failed to get block from hash: ${(err as Error).message}`)
    }
    if (block === null)
      throw new Error(`historical proof query not allowed: block from hash ${hex(sel.hash)} doesn't exist`)
    number = block.header.number
  }
  const oldest = lastAccepted > window ? lastAccepted - window : 0n
  if (number >= oldest) return
  throw new Error(
    `historical proof query not allowed: block number ${number} is before the oldest allowed block number ${oldest} (window of ${window} blocks)`,
  )
}
