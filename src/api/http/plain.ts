/**
 * Plain-text responses as the reference writes them: Go's `http.Error` (text + "\n", with `nosniff`) and
 * gorilla/rpc's `WriteError` (text as is), plus the same on a raw socket for `upgrade` requests.
 */
import { type ServerResponse, STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'

const TEXT = 'text/plain; charset=utf-8'

/** Go's `http.Error(w, message, status)`. */
export function httpError(res: ServerResponse, status: number, message: string): void {
  const body = Buffer.from(message + '\n', 'utf8')
  res.writeHead(status, { 'Content-Type': TEXT, 'X-Content-Type-Options': 'nosniff', 'Content-Length': body.length })
  res.end(body)
}

/** gorilla/rpc's `WriteError(w, status, message)`. */
export function rpcError(res: ServerResponse, status: number, message: string): void {
  const body = Buffer.from(message, 'utf8')
  res.writeHead(status, { 'Content-Type': TEXT, 'Content-Length': body.length })
  res.end(body)
}

/** An error response written straight to a socket (an upgrade request nobody takes), then the socket ends. */
export function socketError(socket: Duplex, status: number, message: string, headers: Record<string, string>): void {
  const body = Buffer.from(message + '\n', 'utf8')
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`
  head += `Content-Type: ${TEXT}\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`
  if (!socket.writable) {
    socket.destroy()
    return
  }
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]))
}
