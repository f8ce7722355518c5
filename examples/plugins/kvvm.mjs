/**
 * kvvm: a key-value chain, as a Firn plugin VM. Copy it to start your own: it implements the whole ChainVm
 * interface (src/chains/vm.ts) in plain JavaScript and imports nothing from Firn.
 *
 * Install: put it in `--plugin-dir` under its VM ID, then call `admin.loadVMs` (or restart the node):
 *
 *   ln -s "$PWD/examples/plugins/kvvm.mjs" ~/.firn/plugins/pKzWfwFJiwYE8pfXv6iF7r9E8nG68tv8uQuTKUA9Wmv5yUEmM.mjs
 *
 * (the ID is the CB58 of `kvvm` zero-padded to 32 bytes, as built-in VM IDs are made). Its imports resolve from
 * where the file really is: a symlink into this repo finds `rxjs` here; a copy needs `rxjs` next to it.
 *
 * The chain: a block holds puts (key, value, nonce: strings) and its parent ID, height and time; its bytes are its
 * canonical JSON and its ID is the SHA-256 of its bytes (0x hex). The genesis (`ctx.genesis`) is the initial map,
 * `{"key": "value", ...}`. Accepted values, blocks, heights and the IDs of accepted puts live in the chain's
 * database (`ctx.db`); a block's writes go in one batch with consensus' own (`extra`).
 *
 * The API, at `/ext/bc/<chain>/kv` (the node APIs' JSON-RPC dialect):
 *   kv.put {key, value} -> {id}      queues a put (sent to the other validators too); it applies once accepted
 *   kv.get {key}        -> {value}   the accepted value, null when there is none
 */
import { createHash, randomBytes } from 'node:crypto'
import { Subject } from 'rxjs'

/** Bounds on what a block, a put and the pool may hold. */
export const LIMITS = {
  keyBytes: 128,
  valueBytes: 1024,
  nonceBytes: 32,
  putsPerBlock: 256,
  blockBytes: 512 * 1024,
  pendingPuts: 10_000,
  gossipBytes: 64 * 1024,
  /** how far ahead of this node's clock a block's time may be */
  futureMs: 10_000,
}

const ZERO_ID = `0x${'0'.repeat(64)}`
const utf8 = { keyEncoding: 'utf8', valueEncoding: 'utf8' }
const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true })

const sha256Hex = (bytes) => `0x${createHash('sha256').update(bytes).digest('hex')}`
/** heights as fixed-width keys, so the database keeps them in order */
const heightKey = (height) => String(height).padStart(16, '0')

/** A put's ID: the hash of its fields (the nonce makes every kv.put call a put of its own). */
const putId = (put) => sha256Hex(JSON.stringify([put.key, put.value, put.nonce]))

/** Why a put breaks the chain's rules, or null. */
function putProblem(put) {
  if (!isText(put.key, LIMITS.keyBytes) || put.key === '') return `key must be text of 1 to ${LIMITS.keyBytes} bytes`
  if (!isText(put.value, LIMITS.valueBytes)) return `value must be text of at most ${LIMITS.valueBytes} bytes`
  if (!isText(put.nonce, LIMITS.nonceBytes)) return `nonce must be text of at most ${LIMITS.nonceBytes} bytes`
  return null
}

/** A string of valid Unicode (no lone surrogates, which UTF-8 cannot store) of at most `maxBytes` UTF-8 bytes. */
const isText = (s, maxBytes) => typeof s === 'string' && s.isWellFormed() && Buffer.byteLength(s) <= maxBytes

/** A block's bytes: its fields as JSON, in this order, and nothing else. */
function encodeBlock({ parentId, height, timestampMs, puts }) {
  const plainPuts = puts.map(({ key, value, nonce }) => ({ key, value, nonce }))
  return encoder.encode(JSON.stringify({ parentId, height, timestampMs, puts: plainPuts }))
}

/** The fields of a block's bytes; throws unless the bytes are exactly what `encodeBlock` makes of them. */
function decodeBlock(bytes) {
  let v
  try {
    v = JSON.parse(decoder.decode(bytes))
  } catch {
    throw new Error('not a kvvm block: not JSON')
  }
  const isCount = (n) => Number.isSafeInteger(n) && n >= 0
  const isPut = (p) => typeof p?.key === 'string' && typeof p.value === 'string' && typeof p.nonce === 'string'
  const fieldsOk =
    typeof v?.parentId === 'string' &&
    /^0x[0-9a-f]{64}$/.test(v.parentId) &&
    isCount(v.height) &&
    isCount(v.timestampMs) &&
    Array.isArray(v.puts) &&
    v.puts.every(isPut)
  if (!fieldsOk) throw new Error('not a kvvm block: wrong fields')
  if (!Buffer.from(encodeBlock(v)).equals(Buffer.from(bytes))) throw new Error('not a kvvm block: not canonical')
  return v
}

/** A block as consensus sees it (the interface's VmBlock); the VM decides what verify, accept and reject do. */
class KvBlock {
  #vm
  constructor(vm, fields, bytes) {
    this.#vm = vm
    this.id = sha256Hex(bytes)
    this.parentId = fields.parentId
    this.height = fields.height
    this.timestampMs = fields.timestampMs
    this.puts = fields.puts
    this.putIds = fields.puts.map(putId)
    this.bytes = bytes
  }
  verify() {
    return this.#vm.verifyBlock(this)
  }
  accept(extra) {
    return this.#vm.acceptBlock(this, extra)
  }
  reject() {
    return this.#vm.rejectBlock(this)
  }
}

class KvVm {
  #ctx
  /** the database's parts: values by key, block bytes by ID, IDs by height, accepted put IDs, the last accepted */
  #db
  #lastAccepted
  #preferred = ZERO_ID
  /** verified blocks not yet accepted or rejected, by ID */
  #processing = new Map()
  /** puts waiting for a block, by ID */
  #pending = new Map()
  #signal = new Subject()
  #closed = false
  pending$ = this.#signal.asObservable()

  async initialize(ctx) {
    this.#ctx = ctx
    this.#db = {
      values: ctx.db.sublevel('values', utf8),
      blocks: ctx.db.sublevel('blocks', { keyEncoding: 'utf8', valueEncoding: 'view' }),
      heights: ctx.db.sublevel('heights', utf8),
      puts: ctx.db.sublevel('puts', utf8),
      meta: ctx.db.sublevel('meta', utf8),
    }
    const lastId = await this.#db.meta.get('lastAccepted')
    if (lastId === undefined) {
      const genesis = this.#block(genesisFields(ctx.genesis))
      await this.#commit(genesis, [])
      this.#lastAccepted = genesis
    } else {
      const bytes = await this.#db.blocks.get(lastId)
      if (bytes === undefined) throw new Error(`kvvm database: the last accepted block ${lastId} is missing`)
      this.#lastAccepted = this.#block(decodeBlock(bytes), bytes)
    }
    this.#preferred = this.#lastAccepted.id
    ctx.log.info('kvvm ready', { height: this.#lastAccepted.height, id: this.#lastAccepted.id })
  }

  async buildBlock() {
    const parent = this.#processing.get(this.#preferred) ?? this.#lastAccepted
    let puts = this.#buildable(parent)
    // a put heard again after its block was accepted must not apply twice
    const accepted = await this.#db.puts.getMany(puts.map(([id]) => id))
    for (const [i, [id]] of puts.entries()) if (accepted[i] !== undefined) this.#pending.delete(id)
    puts = puts.filter((_, i) => accepted[i] === undefined).slice(0, LIMITS.putsPerBlock)
    if (puts.length === 0) return undefined
    const block = this.#block({
      parentId: parent.id,
      height: parent.height + 1,
      timestampMs: Math.max(Date.now(), parent.timestampMs),
      puts: puts.map(([, put]) => put),
    })
    await block.verify()
    return block
  }

  async parseBlock(bytes) {
    if (bytes.length > LIMITS.blockBytes) throw new Error(`not a kvvm block: over ${LIMITS.blockBytes} bytes`)
    const id = sha256Hex(bytes)
    if (id === this.#lastAccepted.id) return this.#lastAccepted
    return this.#processing.get(id) ?? this.#block(decodeBlock(bytes), Uint8Array.from(bytes))
  }

  async getBlock(id) {
    if (id === this.#lastAccepted.id) return this.#lastAccepted
    const processing = this.#processing.get(id)
    if (processing !== undefined) return processing
    const bytes = await this.#db.blocks.get(id)
    return bytes === undefined ? undefined : this.#block(decodeBlock(bytes), bytes)
  }

  setPreference(id) {
    this.#preferred = id
  }

  lastAccepted() {
    return { id: this.#lastAccepted.id, height: this.#lastAccepted.height }
  }

  async acceptedIdAt(height) {
    if (!Number.isSafeInteger(height) || height < 0) return undefined
    return this.#db.heights.get(heightKey(height))
  }

  hasPending() {
    return this.#buildable(this.#processing.get(this.#preferred) ?? this.#lastAccepted).length > 0
  }

  /** Puts other validators took (their kv.put): into the pool, not sent on again. */
  appGossip(from, bytes) {
    if (bytes.length > LIMITS.gossipBytes) return
    let puts
    try {
      puts = JSON.parse(decoder.decode(bytes)).puts
    } catch {
      return
    }
    if (!Array.isArray(puts)) return
    for (const p of puts) {
      if (typeof p !== 'object' || p === null) continue
      const put = { key: p.key, value: p.value, nonce: p.nonce }
      if (putProblem(put) !== null) continue
      this.#addPending(put).catch((err) => this.#ctx.log.debug('gossiped put dropped', { from, err: String(err) }))
    }
  }

  async health() {
    if (this.#closed) throw new Error('kvvm is shut down')
    return {
      lastAccepted: this.lastAccepted(),
      processingBlocks: this.#processing.size,
      pendingPuts: this.#pending.size,
    }
  }

  async createHandlers() {
    // the node APIs' service shape (src/rpc/service.ts): `kv.put` calls method `Put`; `parse` gets the params
    // object (or undefined) and throws on bad input; what `handle` throws is answered as error -32000
    const kv = {
      name: 'kv',
      methods: {
        Put: { parse: stringParams('key', 'value'), handle: (p) => this.#put(p) },
        Get: { parse: stringParams('key'), handle: (p) => this.#get(p) },
      },
    }
    return { '/kv': { kind: 'jsonrpc', services: [kv] } }
  }

  async shutdown() {
    this.#closed = true
    this.#signal.complete()
    this.#processing.clear()
    this.#pending.clear()
  }

  // --- blocks ---

  async verifyBlock(block) {
    if (this.#processing.has(block.id) || (await this.#db.blocks.get(block.id)) !== undefined) return
    const parent = block.parentId === this.#lastAccepted.id ? this.#lastAccepted : this.#processing.get(block.parentId)
    if (parent === undefined) throw new Error(`parent ${block.parentId} is not the last accepted or a processing block`)
    if (block.height !== parent.height + 1) throw new Error(`height ${block.height} is not ${parent.height + 1}`)
    if (block.timestampMs < parent.timestampMs) throw new Error(`time ${block.timestampMs} is before its parent's`)
    if (block.timestampMs > Date.now() + LIMITS.futureMs) throw new Error(`time ${block.timestampMs} is in the future`)
    if (block.puts.length === 0 || block.puts.length > LIMITS.putsPerBlock) {
      throw new Error(`a block holds 1 to ${LIMITS.putsPerBlock} puts`)
    }
    for (const put of block.puts) {
      const problem = putProblem(put)
      if (problem !== null) throw new Error(`bad put: ${problem}`)
    }
    // each put applies once: not twice on this branch, not again once accepted
    const onBranch = this.#putIdsOnBranch(parent)
    for (const id of block.putIds) {
      if (onBranch.has(id)) throw new Error(`put ${id} is already on this branch`)
      onBranch.add(id)
    }
    const accepted = await this.#db.puts.getMany(block.putIds)
    const replayed = block.putIds.find((_, i) => accepted[i] !== undefined)
    if (replayed !== undefined) throw new Error(`put ${replayed} is already accepted`)
    this.#processing.set(block.id, block)
  }

  async acceptBlock(block, extra = []) {
    if (block.id === this.#lastAccepted.id) return
    if (!this.#processing.has(block.id) || block.parentId !== this.#lastAccepted.id) {
      throw new Error(`block ${block.id} is not a verified child of the last accepted block`)
    }
    await this.#commit(block, extra)
    this.#processing.delete(block.id)
    this.#lastAccepted = block
    for (const id of block.putIds) this.#pending.delete(id)
    if (!this.#processing.has(this.#preferred)) this.#preferred = block.id
  }

  async rejectBlock(block) {
    // its puts stay in the pool: a later block takes them
    this.#processing.delete(block.id)
    if (this.#preferred === block.id) this.#preferred = this.#lastAccepted.id
  }

  /** One batch: the block's values, its put IDs, the block by ID and height, the new last accepted, `extra`. */
  async #commit(block, extra) {
    const { values, blocks, heights, puts, meta } = this.#db
    const batch = this.#ctx.db.batch()
    for (const put of block.puts) batch.put(put.key, put.value, { sublevel: values })
    for (const id of block.putIds) batch.put(id, String(block.height), { sublevel: puts })
    batch.put(block.id, block.bytes, { sublevel: blocks })
    batch.put(heightKey(block.height), block.id, { sublevel: heights })
    batch.put('lastAccepted', block.id, { sublevel: meta })
    for (const e of extra) {
      if (e.type === 'del') batch.del(e.key, { sublevel: e.sublevel })
      else batch.put(e.key, e.value, { sublevel: e.sublevel })
    }
    await batch.write()
  }

  #block(fields, bytes = encodeBlock(fields)) {
    return new KvBlock(this, fields, bytes)
  }

  /** The IDs of the puts in `block` and its processing ancestors (down to the last accepted block). */
  #putIdsOnBranch(block) {
    const ids = new Set()
    for (let b = block; b !== undefined && b !== this.#lastAccepted; b = this.#processing.get(b.parentId)) {
      for (const id of b.putIds) ids.add(id)
    }
    return ids
  }

  /** Pending puts a child of `parent` may take, as [id, put]. */
  #buildable(parent) {
    const onBranch = this.#putIdsOnBranch(parent)
    return [...this.#pending].filter(([id]) => !onBranch.has(id))
  }

  // --- puts ---

  async #put({ key, value }) {
    const put = { key, value, nonce: randomBytes(8).toString('hex') }
    const problem = putProblem(put)
    if (problem !== null) throw new Error(problem)
    const id = await this.#addPending(put)
    this.#ctx.app.gossip(this.#ctx.app.connected(), encoder.encode(JSON.stringify({ puts: [put] })))
    return { id }
  }

  async #get({ key }) {
    if (!isText(key, LIMITS.keyBytes) || key === '')
      throw new Error(`key must be text of 1 to ${LIMITS.keyBytes} bytes`)
    return { value: (await this.#db.values.get(key)) ?? null }
  }

  /** Into the pool unless it is there or accepted already; tells the builder. */
  async #addPending(put) {
    const id = putId(put)
    if (this.#closed || this.#pending.has(id)) return id
    if ((await this.#db.puts.get(id)) !== undefined) return id
    if (this.#pending.size >= LIMITS.pendingPuts) throw new Error('too many pending puts, try again later')
    this.#pending.set(id, put)
    this.#signal.next()
    return id
  }
}

/** The genesis block of a map `{"key": "value", ...}` (keys in order, empty nonces). */
function genesisFields(genesis) {
  const map = genesis ?? {}
  if (typeof map !== 'object' || Array.isArray(map)) throw new Error('kvvm genesis must be an object of strings')
  const puts = Object.keys(map)
    .sort()
    .map((key) => ({ key, value: map[key], nonce: '' }))
  for (const put of puts) {
    const problem = putProblem(put)
    if (problem !== null) throw new Error(`kvvm genesis: ${JSON.stringify(put.key)}: ${problem}`)
  }
  return { parentId: ZERO_ID, height: 0, timestampMs: 0, puts }
}

/** Params `{name: string, ...}`: each named field must be a string. */
const stringParams =
  (...names) =>
  (raw) => {
    const params = {}
    for (const name of names) {
      const v = raw?.[name]
      if (typeof v !== 'string') throw new Error(`${name} must be a string`)
      params[name] = v
    }
    return params
  }

export default {
  version: 'v0.1.0',
  aliases: ['kvvm'],
  createVM: () => new KvVm(),
}
