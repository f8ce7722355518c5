/**
 * The C chain's `debug` tracing methods (coreth eth/tracers/api.go, the `debug-tracer` service):
 * debug_traceTransaction, debug_traceCall, debug_traceBlockByNumber and debug_traceBlockByHash. Blocks are
 * re-executed on their parent's state (src/chains/evm/trace/replay.ts) with geth's native tracers; results and
 * error texts are geth's (libevm 1.13).
 */
import { bytesToHex } from '@ethereumjs/util'
import { checkArity, invalidArgument } from '../../../rpc/eth-args.js'
import type { CallContext, EthMethod } from '../../../rpc/eth-types.js'
import { headerHash } from '../header.js'
import { parseTraceCallConfig, parseTraceConfig } from '../trace/config.js'
import { GoJsonError } from '../trace/go-struct.js'
import { blockBody, runUpTo, stateAfter, traceBlock, traceBlockTx } from '../trace/replay.js'
import { type CallBlock, traceCallOn } from '../trace/trace-call.js'
import type { EthBackend, ResolvedBlock } from './backend.js'
import {
  applyStateOverrides,
  callBlock,
  parseBlockOverrides,
  parseStateOverrides,
  withBlockOverrides,
} from './exec-overrides.js'
import { type BlockSelector, parseBlockNumber, parseBlockNumberOrHash, parseHash, parseTxArgs } from './hexutil.js'

/** A Go-decoded config argument: its type errors are `invalid argument i: ...`. */
function configArg<T>(v: unknown, i: number, parse: (v: unknown) => T): T {
  try {
    return parse(v)
  } catch (err) {
    if (err instanceof GoJsonError) throw invalidArgument(i, err.message)
    throw err
  }
}

/** geth's blockByNumber / blockByHash: the block or `block #N not found` / `block 0x... not found`. */
async function findBlock(backend: EthBackend, sel: BlockSelector): Promise<ResolvedBlock> {
  const block = await backend.resolveBlock(sel)
  if (block !== null) return block
  if (sel.kind === 'hash') throw new Error(`block ${bytesToHex(sel.hash)} not found`)
  throw new Error(`block #${sel.kind === 'number' ? sel.number : tagNumber(sel.tag)} not found`)
}

/** rpc.BlockNumber's value for a tag (coreth: earliest 0, latest -2, pending -1, accepted/finalized -3, safe -4). */
function tagNumber(tag: string): number {
  return { earliest: 0, latest: -2, pending: -1, accepted: -3, finalized: -3, safe: -4 }[tag] ?? 0
}

export function debugMethods(backend: EthBackend): Array<[string, EthMethod]> {
  const core = backend.core
  const env = (ctx: CallContext) => ({ core, signal: ctx.signal, maxTimeoutMs: backend.config.rpcTraceMaxTimeoutMs })

  const traceBlockAt = async (block: ResolvedBlock, config: ReturnType<typeof parseTraceConfig>, ctx: CallContext) => {
    const body = await blockBody(core, block.hash)
    if (body === undefined) throw new Error(`block ${bytesToHex(block.hash)} not found`)
    return traceBlock(env(ctx), body.header, body.txs, config)
  }

  const traceTransaction: EthMethod = async (params, ctx) => {
    const hash = params.length > 0 ? parseHash(params[0], 0) : undefined
    const config = params.length > 1 ? configArg(params[1], 1, parseTraceConfig) : parseTraceConfig(undefined)
    checkArity(params, 1, 2)
    const at = await core.getTxLocation(hash!)
    if (at === undefined) throw new Error('transaction not found')
    if (at.blockNumber === 0n) throw new Error('genesis is not traceable')
    const body = await blockBody(core, at.blockHash)
    if (body === undefined) throw new Error(`block #${at.blockNumber} not found`)
    return traceBlockTx(env(ctx), body.header, body.txs, at.index, config)
  }

  const traceCall: EthMethod = async (params, ctx) => {
    const args = params.length > 0 ? parseTxArgs(params[0], 0) : {}
    const sel = params.length > 1 ? parseBlockNumberOrHash(params[1], 1) : undefined
    const config = params.length > 2 ? configArg(params[2], 2, parseTraceCallConfig) : parseTraceCallConfig(undefined)
    const stateOverrides = parseStateOverrides(config.stateOverrides, 2)
    const blockOverrides = parseBlockOverrides(config.blockOverrides, 2)
    checkArity(params, 2, 3)
    if (sel === undefined) throw new Error('invalid arguments; neither block nor hash specified')
    if (sel.kind === 'tag' && sel.tag === 'pending') throw new Error('tracing on top of pending is not supported')
    const block = await findBlock(backend, sel)
    const header = block.header
    let sm: Awaited<ReturnType<typeof stateAfter>>
    if (config.txIndex !== undefined) {
      const body = await blockBody(core, block.hash)
      if (body === undefined) throw new Error(`block ${bytesToHex(block.hash)} not found`)
      sm = (await runUpTo(core, header, body.txs, Number(config.txIndex), config.reexec)).sm
    } else {
      sm = await stateAfter(core, header, config.reexec)
    }
    const at: CallBlock = { header }
    if (blockOverrides !== undefined) {
      // overriding the number to N+1 makes the call a child of N, so BLOCKHASH(N) works (geth #32175)
      const child = blockOverrides.number === header.number + 1n
      const callEnv = withBlockOverrides(
        {
          parentHash: child ? headerHash(header) : header.parentHash,
          number: header.number,
          time: header.time,
          gasLimit: header.gasLimit,
          baseFee: header.baseFee,
          coinbase: header.coinbase,
          difficulty: header.difficulty,
        },
        blockOverrides,
      )
      at.block = callBlock(sm.common, callEnv)
      at.parentHash = callEnv.parentHash
    }
    await applyStateOverrides(sm, stateOverrides)
    return traceCallOn(env(ctx), sm, at, args, BigInt(backend.config.rpcGasCap), config)
  }

  const traceBlockByNumber: EthMethod = async (params, ctx) => {
    const sel = params.length > 0 ? parseBlockNumber(params[0], 0) : undefined
    const config = params.length > 1 ? configArg(params[1], 1, parseTraceConfig) : parseTraceConfig(undefined)
    checkArity(params, 1, 2)
    return traceBlockAt(await findBlock(backend, sel!), config, ctx)
  }

  const traceBlockByHash: EthMethod = async (params, ctx) => {
    const hash = params.length > 0 ? parseHash(params[0], 0) : undefined
    const config = params.length > 1 ? configArg(params[1], 1, parseTraceConfig) : parseTraceConfig(undefined)
    checkArity(params, 1, 2)
    return traceBlockAt(await findBlock(backend, { kind: 'hash', hash: hash!, requireCanonical: false }), config, ctx)
  }

  return [
    ['debug_traceTransaction', traceTransaction],
    ['debug_traceCall', traceCall],
    ['debug_traceBlockByNumber', traceBlockByNumber],
    ['debug_traceBlockByHash', traceBlockByHash],
  ]
}
