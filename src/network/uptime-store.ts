/** Where the network actor's uptime records live: the `uptime` sublevel, read at start and written as they change. */
import { decodeUptimeRecord, encodeUptimeRecord, type UptimeRecord } from '../../actors/peers/uptime.js'
import type { Database } from '../db/open.js'
import { Sublevel } from '../db/sublevels.js'
import type { Logger } from '../log/logger.js'

interface KeyValue {
  put(k: string, v: string): Promise<void>
  del(k: string): Promise<void>
  iterator(): AsyncIterable<[string, string]>
}

export class UptimeStore {
  readonly #db: KeyValue
  #writes: Promise<void> = Promise.resolve()

  constructor(
    db: Database,
    private readonly log: Logger,
  ) {
    this.#db = db.sublevel<string, string>(Sublevel.uptime, {
      keyEncoding: 'utf8',
      valueEncoding: 'utf8',
    }) as unknown as KeyValue
  }

  /** The stored records; a bad one is skipped with a warning. */
  async load(): Promise<Record<string, UptimeRecord>> {
    const records: Record<string, UptimeRecord> = {}
    for await (const [id, text] of this.#db.iterator()) {
      try {
        records[id] = decodeUptimeRecord(text)
      } catch (err) {
        this.log.warn('skipping a bad uptime record', { nodeID: id, err })
      }
    }
    return records
  }

  /** Queues the writes (null deletes), in order. */
  write(records: Record<string, UptimeRecord | null>): void {
    for (const [id, record] of Object.entries(records)) {
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
