/**
 * A bare node:http server on 127.0.0.1 port 0 around the eth routes (`/rpc` to the HTTP route, everything
 * else and every 'upgrade' to the WebSocket route), a test subscription kind that pushes on demand, a
 * method whose answer the test releases, and two clients: a `ws` one that queues what it reads and a raw
 * TCP one that does the handshake by hand and can stop reading.
 */
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { connect, type Socket } from 'node:net'
import WebSocket from 'ws'
import {
  createEthRpcRoute,
  createEthWsRoute,
  type EthWsOptions,
  type EthWsRoute,
} from '../../../../../src/api/ethrpc/index.js'
import { FirnError } from '../../../../../src/runtime/errors.js'
import { Hub, type LogLine, testMethods } from './fixture.js'

export const WS_PATH = '/ext/bc/C/ws'

/** One started `ticks` subscription. */
export interface TestSub {
  readonly push: (result: unknown) => void
  readonly params: unknown[]
  readonly connection: number | undefined
  stopped: boolean
}

/** Events: `sub` (TestSub) when a `ticks` subscription starts, `stop` (TestSub) when it stops, `waiting` when a `test_wait` call starts. */
export class WsHub extends Hub {
  readonly subs: TestSub[] = []
  /** resolvers of the running `test_wait` calls, oldest first */
  readonly waiting: Array<(value: unknown) => void> = []
  running = 0
  maxRunning = 0
}

export async function startWsServer(overrides: Partial<EthWsOptions> = {}) {
  const hub = new WsHub()
  const logs: LogLine[] = []
  const log = {
    debug: (msg: string, fields?: object) => logs.push({ level: 'debug', msg, fields }),
    warn: (msg: string, fields?: object) => {
      logs.push({ level: 'warn', msg, fields })
      hub.emit('warn', msg, fields)
    },
  }
  const methods = new Map(testMethods(hub))
  methods.set('test_wait', (params) => {
    hub.running++
    hub.maxRunning = Math.max(hub.maxRunning, hub.running)
    return new Promise((resolve) => {
      hub.waiting.push(resolve)
      hub.emit('waiting', params)
    }).finally(() => hub.running--)
  })
  const opts: EthWsOptions = {
    methods,
    subscriptions: {
      ticks: (params, push, ctx) => {
        const sub: TestSub = { push, params, connection: ctx.connection?.id, stopped: false }
        hub.subs.push(sub)
        if (params[0] === 'early') push('early')
        hub.emit('sub', sub)
        return () => {
          sub.stopped = true
          hub.stops++
          hub.emit('stop', sub)
        }
      },
      failing: () => {
        throw new FirnError('bad filter', -32602)
      },
    },
    log,
    ...overrides,
  }
  const route: EthWsRoute = createEthWsRoute(opts)
  const rpc = createEthRpcRoute(opts)
  const server = createServer((req, res) => (req.url === '/rpc' ? rpc.handle(req, res) : route.handle(req, res)))
  server.on('upgrade', (req, socket, head) => route.upgrade?.(req, socket, head))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  const { port } = address
  const clients = new Set<{ destroy(): void }>()

  return {
    hub,
    logs,
    route,
    port,
    rpcUrl: `http://127.0.0.1:${port}/rpc`,
    wsUrl: `ws://127.0.0.1:${port}${WS_PATH}`,
    /** A `ws` client, open. */
    async client(): Promise<Client> {
      const c = new Client(`ws://127.0.0.1:${port}${WS_PATH}`)
      clients.add(c)
      await c.opened
      return c
    },
    /** A raw TCP client after a successful handshake. */
    async raw(): Promise<RawClient> {
      const c = await RawClient.open(port)
      clients.add(c)
      return c
    },
    async close() {
      for (const c of clients) c.destroy()
      route.close()
      const closed = once(server, 'close')
      server.close()
      server.closeAllConnections()
      await closed
    },
  }
}

export type WsServer = Awaited<ReturnType<typeof startWsServer>>

/** A `ws` client whose messages are read in order with `next()`. */
export class Client {
  readonly ws: WebSocket
  readonly opened: Promise<void>
  /** resolves with the close code and reason */
  readonly closed: Promise<{ code: number; reason: string }>
  readonly #queue: string[] = []
  #waiter: ((text: string | undefined) => void) | undefined
  #isClosed = false

  constructor(url: string) {
    this.ws = new WebSocket(url, { perMessageDeflate: false })
    this.ws.on('error', () => {})
    this.opened = once(this.ws, 'open').then(() => {})
    this.ws.on('message', (data: Buffer) => {
      const text = data.toString()
      const waiter = this.#waiter
      this.#waiter = undefined
      if (waiter !== undefined) waiter(text)
      else this.#queue.push(text)
    })
    this.closed = new Promise((resolve) => {
      this.ws.once('close', (code: number, reason: Buffer) => {
        this.#isClosed = true
        this.#waiter?.(undefined)
        resolve({ code, reason: reason.toString() })
      })
    })
  }

  get queued(): number {
    return this.#queue.length
  }

  /** The next message; rejects if the connection closes first. */
  next(): Promise<string> {
    const text = this.#queue.shift()
    if (text !== undefined) return Promise.resolve(text)
    if (this.#isClosed) return Promise.reject(new Error('connection closed'))
    return new Promise((resolve, reject) => {
      this.#waiter = (t) => (t === undefined ? reject(new Error('connection closed')) : resolve(t))
    })
  }

  send(text: string): void {
    this.ws.send(text)
  }

  call(text: string): Promise<string> {
    this.send(text)
    return this.next()
  }

  destroy(): void {
    this.ws.terminate()
  }
}

/** A client frame: FIN, masked, as RFC 6455 requires of clients. */
export function clientFrame(payload: string | Buffer, opcode = 1): Buffer {
  const data = Buffer.from(payload)
  const len = data.length
  let head: Buffer
  if (len < 126) head = Buffer.from([0x80 | opcode, 0x80 | len])
  else if (len < 65536) head = Buffer.from([0x80 | opcode, 0x80 | 126, len >> 8, len & 0xff])
  else {
    head = Buffer.alloc(10)
    head[0] = 0x80 | opcode
    head[1] = 0x80 | 127
    head.writeBigUInt64BE(BigInt(len), 2)
  }
  const mask = randomBytes(4)
  const masked = Buffer.alloc(len)
  for (let i = 0; i < len; i++) masked[i] = data[i]! ^ mask[i % 4]!
  return Buffer.concat([head, mask, masked])
}

export interface Frame {
  opcode: number
  payload: Buffer
}

/** A TCP client speaking WebSocket by hand: it reads only when asked, and can stop reading altogether. */
export class RawClient {
  readonly socket: Socket
  /** resolves when the socket is closed (by either side) */
  readonly closed: Promise<void>
  #buffer = Buffer.alloc(0)
  #wake: (() => void) | undefined
  #ended = false

  private constructor(socket: Socket) {
    this.socket = socket
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk])
      this.#wake?.()
    })
    this.closed = once(socket, 'close').then(() => {
      this.#ended = true
      this.#wake?.()
    })
  }

  /** Connects and does the handshake; throws unless the answer is 101. */
  static async open(port: number, path = WS_PATH): Promise<RawClient> {
    const c = new RawClient(connect(port, '127.0.0.1'))
    await once(c.socket, 'connect')
    c.socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
        `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
    )
    const end = await c.#until(() => {
      const i = c.#buffer.indexOf('\r\n\r\n')
      return i === -1 ? undefined : i + 4
    })
    const head = c.#buffer.subarray(0, end).toString('latin1')
    c.#buffer = c.#buffer.subarray(end)
    if (!head.startsWith('HTTP/1.1 101 ')) throw new Error(`handshake refused: ${head}`)
    return c
  }

  sendText(text: string): void {
    this.socket.write(clientFrame(text))
  }

  /** The next server frame (servers do not mask). */
  async frame(): Promise<Frame> {
    return this.#until(() => {
      const b = this.#buffer
      if (b.length < 2) return undefined
      let len = b[1]! & 0x7f
      let at = 2
      if (len === 126) {
        if (b.length < 4) return undefined
        len = b.readUInt16BE(2)
        at = 4
      } else if (len === 127) {
        if (b.length < 10) return undefined
        len = Number(b.readBigUInt64BE(2))
        at = 10
      }
      if (b.length < at + len) return undefined
      const frame = { opcode: b[0]! & 0x0f, payload: b.subarray(at, at + len) }
      this.#buffer = b.subarray(at + len)
      return frame
    })
  }

  /** The next text message, skipping pings. */
  async text(): Promise<string> {
    for (;;) {
      const f = await this.frame()
      if (f.opcode === 1) return f.payload.toString()
      if (f.opcode !== 9) throw new Error(`unexpected opcode ${f.opcode}`)
    }
  }

  /** Stop reading: the kernel buffers fill and the server's writes queue up. */
  stopReading(): void {
    this.socket.pause()
  }

  destroy(): void {
    this.socket.destroy()
  }

  async #until<T>(take: () => T | undefined): Promise<T> {
    for (;;) {
      const value = take()
      if (value !== undefined) return value
      if (this.#ended) throw new Error('connection closed')
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
      this.#wake = undefined
    }
  }
}

/** Waits (a few ms at a time) until `cond()` holds; fails after `ms`. */
export async function waitFor(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/** `n` events of `name` on `hub`, counting from now. */
export function events(hub: Hub, name: string, n: number): Promise<unknown[][]> {
  const seen: unknown[][] = []
  return new Promise((resolve) => {
    const on = (...args: unknown[]): void => {
      seen.push(args)
      if (seen.length < n) return
      hub.off(name, on)
      resolve(seen)
    }
    hub.on(name, on)
  })
}
