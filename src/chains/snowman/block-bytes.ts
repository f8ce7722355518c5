/**
 * The containers behind the engine's blocks: the engine keeps blocks as `EngineBlock`s (no bytes, JSON-safe), so
 * the engine's IO parses each container before the engine sees it and keeps its bytes here, by block ID, until it
 * carries out the effect that needs them (verifying a block, push-querying one it built) or the block is decided.
 * Bounded: past `cap` blocks the least recently stored is forgotten (a verification then fails, as for a block
 * whose bytes never arrived). For one ID the last container stored wins.
 */

/** Containers held at most: the engine's own bounds (1,024 blocks pending, 1,024 queries held) with room to spare. */
export const MAX_HELD_CONTAINERS = 4096

export class BlockBytes {
  readonly #bytes = new Map<string, Uint8Array>()

  constructor(readonly cap = MAX_HELD_CONTAINERS) {}

  get size(): number {
    return this.#bytes.size
  }

  get(id: string): Uint8Array | undefined {
    return this.#bytes.get(id)
  }

  set(id: string, bytes: Uint8Array): void {
    this.#bytes.delete(id)
    this.#bytes.set(id, bytes)
    while (this.#bytes.size > this.cap) {
      const oldest = this.#bytes.keys().next()
      if (oldest.done) break
      this.#bytes.delete(oldest.value)
    }
  }

  delete(id: string): void {
    this.#bytes.delete(id)
  }

  clear(): void {
    this.#bytes.clear()
  }
}
