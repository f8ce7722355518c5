/**
 * The test-only echo exchange (protocols/echo), registered with NetworkOptions.testProtocols: the inbound handler
 * answers a connected peer's echo, or stays silent (no answer until the request's deadline) while
 * `echoSilent()` is true; `echo(nodeId, chainId)` sends one through the request tracker.
 */
import type { Echo } from '../../protocols/echo/service.js'
import { echoAnswer } from '../../protocols/echo/service.js'
import type { InboundRequest } from '../../protocols/service/exchange.js'
import { idFromString } from '../identity/ids.js'
import type { Connections } from './connections.js'
import type { Host } from './host.js'
import type { RequestTracker } from './request-tracker.js'

/** the exchange's own timeout outlives the tracker's by this much, so the tracker decides */
const EXCHANGE_SLACK_MS = 1_000

export interface EchoDeps {
  connections: Connections
  tracker: RequestTracker
  services: () => Host['services']
  /** the handler answers nothing while this returns true */
  silent?: () => boolean
  log: { debug(msg: string, fields?: object): void }
  now: () => number
}

export class EchoBridge {
  constructor(private readonly d: EchoDeps) {}

  /** The inbound echo handler: never throws; a silent node answers nothing before the deadline. */
  onEcho(req: Echo, ctx: InboundRequest): Echo | undefined | Promise<Echo | undefined> {
    const { connections } = this.d
    try {
      const from = connections.connectedNodeIdOf(ctx.connection)
      if (from === undefined) return undefined
      connections.touch(from, 'in')
      if (this.d.silent?.() === true) {
        return new Promise((resolve) => {
          if (ctx.signal.aborted) resolve(undefined)
          else ctx.signal.addEventListener('abort', () => resolve(undefined), { once: true })
        })
      }
      connections.touch(from, 'out')
      return echoAnswer(req)
    } catch (err) {
      this.d.log.debug('echo handler failed', { peer: ctx.remotePeer.toString(), err })
      return undefined
    }
  }

  /** One echo to a connected peer on a chain, tracked (timeout, benchlist); resolves with the round trip in ms. */
  async echo(nodeId: string, chainId: string, payload: Uint8Array = new Uint8Array(0)): Promise<number> {
    const { connections, now } = this.d
    const service = this.d.services().echo
    if (service === undefined) throw new Error('the echo protocol is not registered (test protocols are off)')
    const chainBytes = idFromString(chainId)
    const started = now()
    await this.d.tracker.request({ nodeId, chainId, op: 'echo' }, async (signal, deadlineMs) => {
      const peer = connections.peerIdOf(nodeId)
      if (peer === undefined) throw new Error('not connected')
      connections.touch(nodeId, 'out')
      const answer = await service.request(
        peer,
        { chainId: chainBytes, payload },
        { signal, timeoutMs: Math.max(1, deadlineMs - now()) + EXCHANGE_SLACK_MS },
      )
      connections.touch(nodeId, 'in')
      return answer
    })
    return now() - started
  }
}
