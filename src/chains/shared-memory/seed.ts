/**
 * Seeding shared memory at genesis: UTXOs that `source` (the X chain for the dev and local presets) hands `dest`
 * (an EVM chain), put once in the life of the database. A marker written in the same batch as the puts records it,
 * so a restart does not put them again (and a seeded UTXO that was imported meanwhile does not come back). Each
 * seeder has its own marker (`tag`: '' for the presets, `genesis-file` for the genesis file's `atomicUtxos`), so
 * one seeding a pair does not keep another from seeding it once too.
 */
import { FirnError } from '../../runtime/errors.js'
import type { ChainIdLike } from './keys.js'
import type { Element, SharedMemory } from './shared-memory.js'

/** Puts `elements` as `source`'s for `dest` unless that pair was seeded before; true if it seeded now. */
export async function seedOnce(
  memory: SharedMemory,
  source: ChainIdLike,
  dest: ChainIdLike,
  elements: readonly Element[],
  tag = '',
): Promise<boolean> {
  return memory.exclusive(async () => {
    const marker = memory.seededKey(source, dest, tag)
    if ((await memory.sublevel.get(marker)) !== undefined) return false
    const count = new Uint8Array(4)
    new DataView(count.buffer).setUint32(0, elements.length)
    const requests = new Map([[dest, { putRequests: elements }]])
    let ops: Awaited<ReturnType<SharedMemory['stage']>>
    try {
      ops = await memory.stage(source, requests, [{ type: 'put', key: marker, value: count }])
    } catch (e) {
      throw new FirnError(`shared memory: seeding failed: ${(e as Error).message}`)
    }
    await memory.write(ops)
    return true
  })
}
