/**
 * The engine's IO (reference consensus.md 7.2-7.3): executes the effects the Snowman engine emits and feeds the
 * answers back as engine inputs. VM work (verify, build, accept, reject, set preference) runs strictly in order on
 * one lane; network sends run concurrently through the chain router (request tracker, benchlist). Queries to self
 * loop back without the network. Inbound queries wait here for their chits effect.
 */
import type { EngineEffect, EngineInput } from '../../../actors/consensus/engine-types.js'
import type { Chits } from '../../../actors/consensus/types.js'
import type { Logger } from '../../log/logger.js'
import type { ChainRouter } from '../../network/chain-router.js'
import type { BuildResult, EvmBlocks } from './evm-blocks.js'

export interface EngineSink {
  send(input: EngineInput): void
}

export interface EffectRunnerDeps {
  chainId: string
  self: string
  blocks: EvmBlocks
  router: Pick<ChainRouter, 'pushQuery' | 'pullQuery' | 'get'>
  log: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>
  /** after every accept, preference change and built block: the builder recomputes its slot */
  onTipChanged: () => void
  /** a build came back without a block (no tx fits, or my slot passed) */
  onBuildEmpty: () => void
  /** after each accepted block */
  onAccepted?: (id: string) => void
}

/** how long an inbound query waits for its chits before giving up (the engine always answers at once) */
const CHITS_WAIT_MS = 5_000
/** inbound queries waiting for chits, at most */
const MAX_WAITING = 4096

export class EffectRunner {
  #engine: EngineSink | undefined
  #lane: Promise<void> = Promise.resolve()
  #nextInbound = 1
  readonly #waiting = new Map<number, (c: Chits | undefined) => void>()
  #stopped = false
  #accepted = 0

  constructor(private readonly deps: EffectRunnerDeps) {}

  attach(engine: EngineSink): void {
    this.#engine = engine
  }

  get acceptedCount(): number {
    return this.#accepted
  }

  stop(): void {
    this.#stopped = true
    for (const resolve of this.#waiting.values()) resolve(undefined)
    this.#waiting.clear()
  }

  /** the VM lane drained (tests, shutdown) */
  idle(): Promise<void> {
    return this.#lane
  }

  /** An inbound push/pull query: the engine answers with a chits effect carrying this query's inbound ID. */
  query(
    from: string,
    q: { container?: Uint8Array; blockId?: string; requestedHeight: number },
  ): Promise<Chits | undefined> {
    if (this.#stopped || this.#engine === undefined || this.#waiting.size >= MAX_WAITING)
      return Promise.resolve(undefined)
    const inboundId = this.#nextInbound++
    const answer = new Promise<Chits | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(inboundId)
        resolve(undefined)
      }, CHITS_WAIT_MS)
      timer.unref()
      this.#waiting.set(inboundId, (c) => {
        clearTimeout(timer)
        resolve(c)
      })
    })
    this.#engine.send({ type: 'query', from, inboundId, ...q })
    return answer
  }

  /** a query to ourselves, asked on a later turn (never from inside the engine's own transition) */
  async #selfQuery(q: { container?: Uint8Array; blockId?: string; requestedHeight: number }): Promise<Chits> {
    await Promise.resolve()
    const chits = await this.query(this.deps.self, q)
    if (chits === undefined) throw new Error('no chits from self')
    return chits
  }

  run(effects: readonly EngineEffect[]): void {
    for (const e of effects) this.#one(e)
  }

  #feed(input: EngineInput): void {
    if (!this.#stopped) this.#engine?.send(input)
  }

  #onLane(what: string, work: () => Promise<void>): void {
    this.#lane = this.#lane.then(work).catch((err: unknown) => {
      this.deps.log.error(`${what} failed`, { err: err instanceof Error ? err.message : String(err) })
    })
  }

  #one(e: EngineEffect): void {
    const { deps } = this
    switch (e.type) {
      case 'chits': {
        const resolve = this.#waiting.get(e.inboundId)
        this.#waiting.delete(e.inboundId)
        resolve?.(e.chits)
        return
      }
      case 'pushQuery':
      case 'pullQuery': {
        for (const to of e.to) {
          const asked =
            to === deps.self
              ? this.#selfQuery({
                  requestedHeight: e.requestedHeight,
                  ...(e.type === 'pushQuery' ? { container: e.block.bytes } : { blockId: e.blockId }),
                })
              : e.type === 'pushQuery'
                ? deps.router.pushQuery(to, deps.chainId, e.block.bytes, e.requestedHeight)
                : deps.router.pullQuery(to, deps.chainId, e.blockId, e.requestedHeight)
          asked.then(
            (chits) => this.#feed({ type: 'chits', from: to, requestId: e.requestId, chits }),
            (err: unknown) => {
              deps.log.debug('query failed', { to, requestId: e.requestId, err: String(err) })
              this.#feed({ type: 'queryFailed', from: to, requestId: e.requestId })
            },
          )
        }
        return
      }
      case 'get':
        deps.router.get(e.to, deps.chainId, e.blockId).then(
          (container) => this.#feed({ type: 'put', from: e.to, container, blockId: e.blockId }),
          () => this.#feed({ type: 'getFailed', from: e.to, blockId: e.blockId }),
        )
        return
      case 'verify':
        this.#onLane('verify', async () => {
          let ok = true
          try {
            await deps.blocks.verify(e.block)
          } catch (err) {
            ok = false
            deps.log.debug('block failed verification', {
              id: e.block.id,
              height: e.block.height,
              err: err instanceof Error ? err.message : String(err),
            })
          }
          this.#feed({ type: 'verified', blockId: e.block.id, ok })
        })
        return
      case 'build':
        this.#onLane('build', async () => {
          let result: BuildResult
          try {
            result = await deps.blocks.build()
          } catch (err) {
            deps.log.warn('block build failed', { err: err instanceof Error ? err.message : String(err) })
            result = { kind: 'empty' }
          }
          if (result.kind !== 'built') {
            this.#feed({ type: 'buildFailed' })
            // no tx fits: wait for a new one; my slot passed: wait for my next slot
            return result.kind === 'empty' ? deps.onBuildEmpty() : deps.onTipChanged()
          }
          this.#feed({ type: 'built', block: result.block })
          deps.log.debug('built block', { id: result.block.id, height: result.block.height })
          deps.onTipChanged()
        })
        return
      case 'accept':
        this.#onLane('accept', async () => {
          await deps.blocks.accept(e.blockId)
          this.#accepted++
          deps.log.debug('accepted block', { id: e.blockId, height: deps.blocks.lastAccepted().height })
          deps.onAccepted?.(e.blockId)
          deps.onTipChanged()
        })
        return
      case 'reject':
        this.#onLane('reject', () => deps.blocks.reject(e.blockId))
        return
      case 'setPreference':
        this.#onLane('set preference', async () => {
          deps.blocks.setPreference(e.blockId)
          deps.onTipChanged()
        })
        return
    }
  }
}
