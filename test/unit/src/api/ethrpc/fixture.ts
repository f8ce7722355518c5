/**
 * A real Firn HTTP server on 127.0.0.1 port 0 with the eth routes at /ext/bc/C/rpc and /ext/bc/C/ws, a
 * small method table and a test-driven subscription kind (`ticks`) whose pushes the test controls.
 */
import { EventEmitter } from 'node:events'
import { createEthRpcRoute, createEthWsRoute, type EthWsOptions } from '../../../../../src/api/ethrpc/index.js'
import { createHttpServer } from '../../../../../src/api/http/server.js'
import type { MethodTable } from '../../../../../src/rpc/eth-types.js'
import { FirnError } from '../../../../../src/runtime/errors.js'

export const REVERT_DATA =
  '0x08c379a00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000474657374000000000000000000000000000000000000000000000000000000'

/** Events: `start` (push) when a `ticks` subscription starts, `stop` when one stops, `aborted` when a blocked call's signal fires. */
export class Hub extends EventEmitter {
  readonly pushers = new Set<(result: unknown) => void>()
  stops = 0
}

export function testMethods(hub: Hub): MethodTable {
  return new Map<string, (params: unknown[], ctx: { signal: AbortSignal }) => unknown>([
    ['eth_chainId', () => '0xa868'],
    ['eth_blockNumber', () => '0x10'],
    ['test_echo', (params) => params],
    ['test_async', async (params) => params[0] ?? null],
    ['test_revert', () => Promise.reject(new FirnError('execution reverted: test', 3, REVERT_DATA))],
    [
      'test_fail',
      () => {
        throw new Error('boom <&>')
      },
    ],
    ['test_big', (params) => 'x'.repeat(Number(params[0]))],
    ['test_bigint', () => 1n],
    [
      'test_block',
      (_params, ctx) =>
        new Promise((resolve) => {
          hub.emit('blocked')
          ctx.signal.addEventListener('abort', () => {
            hub.emit('aborted', ctx.signal.reason)
            resolve('late')
          })
        }),
    ],
  ])
}

export interface LogLine {
  level: 'debug' | 'warn'
  msg: string
  fields: object | undefined
}

export async function startEthServer(overrides: Partial<EthWsOptions> = {}) {
  const hub = new Hub()
  const logs: LogLine[] = []
  const log = {
    debug: (msg: string, fields?: object) => logs.push({ level: 'debug', msg, fields }),
    warn: (msg: string, fields?: object) => {
      logs.push({ level: 'warn', msg, fields })
      hub.emit('warn', msg)
    },
  }
  const opts: EthWsOptions = {
    methods: testMethods(hub),
    subscriptions: {
      ticks: (params, push) => {
        if (params.length > 1) throw new FirnError('too many arguments, want at most 2', -32602)
        hub.pushers.add(push)
        hub.emit('start', push, params)
        return () => {
          hub.pushers.delete(push)
          hub.stops++
          hub.emit('stop')
        }
      },
    },
    log,
    ...overrides,
  }
  const server = createHttpServer({
    host: '127.0.0.1',
    port: 0,
    allowedHosts: ['*'],
    allowedOrigins: ['*'],
    nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
  })
  const rpc = createEthRpcRoute(opts)
  const ws = createEthWsRoute(opts)
  server.router.addRoute('bc/C', '/rpc', rpc)
  server.router.addRoute('bc/C', '/ws', ws)
  const { port } = await server.listen()
  return {
    hub,
    logs,
    wsRoute: ws,
    port,
    rpcUrl: `http://127.0.0.1:${port}/ext/bc/C/rpc`,
    wsUrl: `ws://127.0.0.1:${port}/ext/bc/C/ws`,
    async close() {
      ws.close()
      await server.close()
    },
  }
}

/** POST `body` as application/json; resolves with status, content type and the raw text. */
export async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body })
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
}
