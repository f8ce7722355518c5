/**
 * The floor: a bare node:http server answering every POST with a fixed JSON-RPC body. Run as its own process
 * (`node --import tsx bench/lib/bare-server.ts`); it prints its port on stdout.
 */
import { createServer } from 'node:http'

const body = Buffer.from('{"jsonrpc":"2.0","result":{"networkID":"12345"},"id":1}\n')
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length })
    res.end(body)
  })
})
server.keepAliveTimeout = 120_000
server.listen(0, '127.0.0.1', () => {
  const addr = server.address()
  process.stdout.write(`${typeof addr === 'object' && addr ? addr.port : 0}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
