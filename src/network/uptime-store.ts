/** The persisted uptime accounting of the network: the uptime reducer's state, loaded from and written to the uptime sublevel. */
import {
  decodeUptimeRecord,
  encodeUptimeRecord,
  type UptimeEvent,
  type UptimeRecord,
  type UptimeState,
  uptimeCreate,
  uptimeReducer,
} from '../../actors/peers/uptime.js'
import type { Database } from '../db/open.js'
import { Sublevel } from '../db/sublevels.js'
import type { Logger } from '../log/logger.js'

interface KeyValue {
  put(k: string, v: string): Promise<void>
  del(k: string): Promise<void>
  iterator(): AsyncIterable<[string, string]>
}

export class UptimeStore {
  #state!: UptimeState
  #db!: KeyValue
  #writes: Promise<void> = Promise.resolve()

  constructor(private readonly log: Logger) {}

  get state(): UptimeState {
    return this.#state
  }

  /** Reads the stored records (a bad one is skipped with a warning) and starts the accounting at `nowMs`. */
  async load(db: Database, selfNodeId: string, nowMs: number): Promise<void> {
    this.#db = db.sublevel<string, string>(Sublevel.uptime, {
      keyEncoding: 'utf8',
      valueEncoding: 'utf8',
    }) as unknown as KeyValue
    const records: Record<string, UptimeRecord> = {}
    for await (const [id, text] of this.#db.iterator()) {
      try {
        records[id] = decodeUptimeRecord(text)
      } catch (err) {
        this.log.warn('skipping a bad uptime record', { nodeID: id, err })
      }
    }
    this.#state = uptimeCreate({ selfNodeId, nowMs, records })
  }

  /** Runs the reducer and queues the writes of the records it changed. */
  apply(event: UptimeEvent): void {
    const { state, persisted } = uptimeReducer(this.#state, event)
    this.#state = state
    for (const id of persisted) {
      const record = state.records[id]
      const db = this.#db
      this.#writes = this.#writes
        .then(() => (record ? db.put(id, encodeUptimeRecord(record)) : db.del(id)))
        .catch((err: unknown) => this.log.warn('could not persist an uptime record', { nodeID: id, err }))
    }
  }

  /** Resolves once every queued write is done. */
  flushed(): Promise<void> {
    return this.#writes
  }
}
