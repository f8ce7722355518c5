/**
 * Bytes per p2p protocol, through libp2p's `metrics` component: libp2p hands every negotiated protocol stream to
 * `trackProtocolStream` before the protocol's handler or opener sees it, and Firn's protocols write with
 * `stream.send` and read by iterating the stream (protocols/service/channel.ts, protocols/codec/frame.ts,
 * src/network/handshake.ts). The stream's own `send` and async iterator are wrapped to count what passes:
 * `firn_network_bytes_total{io="sent"|"received", protocol}`, `protocol` being the name in
 * `/firn/<networkId>/<name>/<version>` (`handshake`, `peers`, `ping`, `consensus`, `bootstrap`, `app`,
 * `app-gossip`), or `other`. The bytes are the frames Firn writes and reads (Noise and Yamux overhead excluded).
 *
 * libp2p's own metrics (connection manager, transports, Noise) are not exported: the component takes their
 * registrations and drops them, so they cost nothing per packet.
 */
import type { Metrics, Stream } from '@libp2p/interface'
import { Counter, type Registry } from 'prom-client'
import { APP_GOSSIP_PROTOCOL_NAME } from '../../protocols/app/gossip.js'
import { APP_PROTOCOL_NAME } from '../../protocols/app/service.js'
import { BOOTSTRAP_PROTOCOL_NAME } from '../../protocols/bootstrap/service.js'
import { CONSENSUS_PROTOCOL_NAME } from '../../protocols/consensus/service.js'
import { HANDSHAKE_PROTOCOL_NAME } from '../../protocols/handshake/service.js'
import { PEERS_PROTOCOL_NAME } from '../../protocols/peers/service.js'
import { PING_PROTOCOL_NAME } from '../../protocols/ping/service.js'

type Inc = { inc(value: number): void }
type Chunk = { byteLength: number }

/** what libp2p's registrations get back: every metric shape, doing nothing */
const DROPPED = {
  update() {},
  increment() {},
  decrement() {},
  reset() {},
  observe() {},
  timer: () => () => {},
}

/** the protocols every node serves (the test-only echo is left out) */
const NODE_PROTOCOLS = [
  HANDSHAKE_PROTOCOL_NAME,
  PEERS_PROTOCOL_NAME,
  PING_PROTOCOL_NAME,
  CONSENSUS_PROTOCOL_NAME,
  BOOTSTRAP_PROTOCOL_NAME,
  APP_PROTOCOL_NAME,
  APP_GOSSIP_PROTOCOL_NAME,
]

const PROTOCOL = /^\/firn\/[^/]+\/([a-z0-9-]{1,32})\/[^/]+$/

export class StreamMetrics {
  readonly #bytes: Counter<'io' | 'protocol'>
  /** protocol label -> [sent, received] */
  readonly #children = new Map<string, [Inc, Inc]>()

  constructor(registry: Registry) {
    this.#bytes = new Counter({
      name: 'firn_network_bytes_total',
      help: 'Bytes of p2p messages sent and received, by Firn protocol (frames, without Noise/Yamux overhead)',
      labelNames: ['io', 'protocol'],
      registers: [registry],
    })
    // the node's protocols show from the start, at 0
    for (const name of NODE_PROTOCOLS) for (const child of this.#pair(name)) child.inc(0)
  }

  #pair(name: string): [Inc, Inc] {
    let pair = this.#children.get(name)
    if (pair === undefined) {
      pair = [this.#bytes.labels('sent', name), this.#bytes.labels('received', name)]
      this.#children.set(name, pair)
    }
    return pair
  }

  /** Counts what `stream` sends and what is read from it by iteration. */
  track(stream: Stream): void {
    const [sent, received] = this.#pair(PROTOCOL.exec(stream.protocol ?? '')?.[1] ?? 'other')
    const send = stream.send.bind(stream)
    stream.send = (data) => {
      sent.inc(data.byteLength)
      return send(data)
    }
    const iterate = stream[Symbol.asyncIterator].bind(stream)
    stream[Symbol.asyncIterator] = () => {
      const it = iterate()
      const counted = (r: IteratorResult<Chunk>) => {
        if (r.done !== true) received.inc(r.value.byteLength)
        return r
      }
      return {
        next: () => it.next().then(counted),
        return: (value?: unknown) => it.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
        throw: (err?: unknown) => it.throw?.(err) ?? Promise.reject(err),
        [Symbol.asyncIterator]() {
          return this
        },
      } as AsyncGenerator<never>
    }
  }

  /** libp2p's `metrics` option (`createLibp2p({ metrics })`). */
  component(): () => Metrics {
    const metrics = {
      trackMultiaddrConnection() {},
      trackProtocolStream: (stream: Stream) => this.track(stream),
      registerMetric: () => DROPPED,
      registerMetricGroup: () => DROPPED,
      registerCounter: () => DROPPED,
      registerCounterGroup: () => DROPPED,
      registerHistogram: () => DROPPED,
      registerHistogramGroup: () => DROPPED,
      registerSummary: () => DROPPED,
      registerSummaryGroup: () => DROPPED,
      traceFunction: <F>(_name: string, fn: F): F => fn,
      createTrace: () => undefined,
    }
    return () => metrics as unknown as Metrics
  }
}
