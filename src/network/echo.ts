/**
 * The test-only echo exchange (protocols/echo), registered with NetworkOptions.testProtocols: the inbound handler
 * answers a connected peer's echo, or stays silent (no answer until the request's deadline) while
 * `echoSilent()` is true; `echo(nodeId, chainId)` sends one through the request tracker.
 */
import type { Echo } from '../../protocols/echo/service.js'
import { echoAnswer } from '../../protocols/echo/service.js'
import type { InboundRequest } from '../../protocols/service/exchange.js'
import { idFromString } from '../identity/ids.js'
import type { NetworkCore } from './core.js'

/** the exchange's own timeout outlives the tracker's by this much, so the tracker decides */
const EXCHANGE_SLACK_MS = 1_000

export class EchoBridge {
  constructor(private readonly n: NetworkCore) {}

  /** The inbound echo handler: never throws; a silent node answers nothing before the deadline. */
  onEcho(req: Echo, ctx: InboundRequest): Echo | undefined | Promise<Echo | undefined> {
    const n = this.n
    try {
      const session = n.handshakes.sessionOf(ctx.connection)
      if (!n.isConnected(session)) return undefined
      n.sessionBridge.touch(session.nodeId, { received: true })
      n.sessionBridge.send(session, { type: 'session.messageReceived' })
      if (n.o.echoSilent?.() === true) {
        return new Promise((resolve) => {
          if (ctx.signal.aborted) resolve(undefined)
          else ctx.signal.addEventListener('abort', () => resolve(undefined), { once: true })
        })
      }
      n.sessionBridge.touch(session.nodeId, { sent: true })
      return echoAnswer(req)
    } catch (err) {
      n.log.debug('echo handler failed', { peer: ctx.remotePeer.toString(), err })
      return undefined
    }
  }

  /** One echo to a connected peer on a chain, tracked (timeout, benchlist); resolves with the round trip in ms. */
  async echo(nodeId: string, chainId: string, payload: Uint8Array = new Uint8Array(0)): Promise<number> {
    const n = this.n
    const service = n.host.services.echo
    if (service === undefined) throw new Error('the echo protocol is not registered (test protocols are off)')
    const chainBytes = idFromString(chainId)
    const started = n.now()
    await n.benching.tracker.request({ nodeId, chainId, op: 'echo' }, async (signal, deadlineMs) => {
      const session = n.sessions.get(nodeId)
      if (!n.isConnected(session)) throw new Error('not connected')
      n.sessionBridge.touch(nodeId, { sent: true })
      const answer = await service.request(
        session.peerId,
        { chainId: chainBytes, payload },
        { signal, timeoutMs: Math.max(1, deadlineMs - n.now()) + EXCHANGE_SLACK_MS },
      )
      n.sessionBridge.touch(nodeId, { received: true })
      n.sessionBridge.send(session, { type: 'session.messageReceived' })
      return answer
    })
    return n.now() - started
  }
}
