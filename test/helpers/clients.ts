/**
 * Clients that come from a chosen loopback address (127.x.y.z: every address of 127/8 reaches 127.0.0.1 on
 * Linux), for the per-client limits: JSON-RPC over HTTP and WebSocket, raw sockets, a node's memory from /proc,
 * and a dev node with a C-chain config file.
 */

import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { type Agent, request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { type FirnProcess, startFirn } from './firn-process.js'

export interface RpcAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  /** the JSON body, when it is JSON */
  json: { id?: unknown; result?: unknown; error?: { code: number; message: string } } | undefined
}

/** One POST of `body` (an object or a raw text) from `localAddress`, on a connection of its own unless `agent`. */
export function post(url: string, body: unknown, localAddress = '127.0.0.1', agent?: Agent): Promise<RpcAnswer> {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', localAddress, agent: agent ?? false, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const out = Buffer.concat(chunks).toString()
          let json: RpcAnswer['json']
          try {
            json = JSON.parse(out) as RpcAnswer['json']
          } catch {
            json = undefined
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: out, json })
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(text)
  })
}

export const call = (url: string, method: string, params: unknown[] = [], localAddress?: string, agent?: Agent) =>
  post(url, { jsonrpc: '2.0', id: 1, method, params }, localAddress, agent)

/** A raw TCP connection to the node's HTTP port from `localAddress`. */
export function rawSocket(url: string, localAddress: string): Promise<Socket> {
  const u = new URL(url)
  return new Promise((resolve, reject) => {
    const s = connect({ host: u.hostname, port: Number(u.port), localAddress }, () => resolve(s))
    s.once('error', reject)
  })
}

/** A WebSocket from `localAddress`: resolves open, or rejects with the HTTP status the upgrade got. */
export function openWs(url: string, localAddress: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { localAddress })
    ws.once('open', () => resolve(ws))
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (c: Buffer) => {
        body += c.toString()
      })
      res.on('end', () => reject(Object.assign(new Error(body.trim()), { status: res.statusCode })))
    })
    ws.once('error', reject)
  })
}

/** JSON-RPC over an open WebSocket: each call resolves with its answer (matched by id). */
export function wsRpc(ws: WebSocket): (method: string, params?: unknown[]) => Promise<RpcAnswer['json']> {
  let next = 1
  const waiting = new Map<number, (v: RpcAnswer['json']) => void>()
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString()) as { id?: number }
    if (typeof msg.id === 'number') waiting.get(msg.id)?.(msg as RpcAnswer['json'])
    if (typeof msg.id === 'number') waiting.delete(msg.id)
  })
  return (method, params = []) =>
    new Promise((resolve) => {
      const id = next++
      waiting.set(id, resolve)
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
}

/** A process's resident memory now and at its peak, in MB (Linux /proc). */
export async function memoryOf(pid: number): Promise<{ rssMb: number; peakMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0)
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 }
}

/** `firn --dev` (plus `args`) with a C-chain config file. */
export async function devNodeWithConfig(config: Record<string, unknown>, args: string[] = []): Promise<FirnProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'firn-limits-'))
  const chainDir = join(dir, 'configs', 'chains', 'C')
  await mkdir(chainDir, { recursive: true })
  await writeFile(join(chainDir, 'config.json'), JSON.stringify(config))
  return startFirn({ args: ['--dev', ...args], dataDir: dir })
}
