/**
 * The atomic block builder (src/chains/evm/atomic/backend.ts) against issueTx replacements that arrive while it
 * verifies (it awaits shared memory): a tx the builder took is `issued` at once, so a conflict paying more is
 * refused (`conflict present`); a tx replaced before the builder took it is not put in the block. Shared memory
 * is real (LevelDB in a temp dir) holding the dev preset's UTXOs; a wrapper runs a hook on its n-th read.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import type { Account, Address } from '@ethereumjs/util'
import { AtomicBackend } from '../../../../../../src/chains/evm/atomic/backend.js'
import { effectiveGasPrice, gasUsed } from '../../../../../../src/chains/evm/atomic/fees.js'
import { fromHex } from '../../../../../../src/chains/evm/atomic/hex.js'
import { decodedOf } from '../../../../../../src/chains/evm/atomic/ids.js'
import { pooled } from '../../../../../../src/chains/evm/atomic/mempool.js'
import {
  DEV_X_UTXO_AMOUNT,
  DEV_X_UTXO_TX_ID,
  presetXUtxos,
} from '../../../../../../src/chains/evm/atomic/preset-utxos.js'
import { shortAddressOfKey, signTx } from '../../../../../../src/chains/evm/atomic/sign.js'
import type { Hex, UnsignedImportTx } from '../../../../../../src/chains/evm/atomic/types.js'
import type { BlockRun } from '../../../../../../src/chains/evm/exec/block-run.js'
import { type ChainSharedMemory, SharedMemory } from '../../../../../../src/chains/shared-memory/shared-memory.js'
import { type Database, openDatabase } from '../../../../../../src/db/open.js'
import { idToString } from '../../../../../../src/identity/ids.js'
import { EWOQ_EVM, EWOQ_KEY, LOCAL } from './fixtures.js'

const dirs: string[] = []
const dbs: Database[] = []
after(async () => {
  for (const db of dbs) await db.close().catch(() => undefined)
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

/** C's view of a fresh shared memory holding the preset X -> C UTXOs; `onGet(n)` runs before the n-th read. */
async function memoryWithPreset(onGet: (n: number) => void): Promise<ChainSharedMemory> {
  const path = await mkdtemp(join(tmpdir(), 'firn-atomic-build-'))
  dirs.push(path)
  const db = await openDatabase({ type: 'leveldb', path })
  dbs.push(db)
  const shared = new SharedMemory(db)
  const c = fromHex(LOCAL.cChainId, 32, 'C')
  await shared.forChain(fromHex(LOCAL.xChainId, 32, 'X')).apply({
    [idToString(c)]: { removeRequests: [], putRequests: presetXUtxos(LOCAL.avaxAssetId, shortAddressOfKey(EWOQ_KEY)) },
  })
  const memory = shared.forChain(c)
  let reads = 0
  return {
    chainId: memory.chainId,
    get: (peer, keys) => {
      onGet(++reads)
      return memory.get(peer, keys)
    },
    indexed: (...args) => memory.indexed(...args),
    apply: (...args) => memory.apply(...args),
    exclusive: (fn) => memory.exclusive(fn),
  }
}

/** An import of the preset UTXO `index` to the test key's EVM address, paying `fee` nAVAX, signed. */
function importOf(index: number, fee: bigint) {
  const unsigned: UnsignedImportTx = {
    type: 'import',
    networkId: LOCAL.networkId,
    blockchainId: LOCAL.cChainId,
    sourceChain: LOCAL.xChainId,
    importedInputs: [
      {
        txId: DEV_X_UTXO_TX_ID,
        outputIndex: index,
        assetId: LOCAL.avaxAssetId,
        input: { amount: DEV_X_UTXO_AMOUNT, sigIndices: [0] },
      },
    ],
    outputs: [{ address: EWOQ_EVM, amount: DEV_X_UTXO_AMOUNT - fee, assetId: LOCAL.avaxAssetId }],
  }
  const d = decodedOf(signTx(unsigned, [[EWOQ_KEY]]))
  return pooled(d, gasUsed(unsigned), effectiveGasPrice(unsigned, LOCAL.avaxAssetId))
}

function backendOn(memory: ChainSharedMemory): AtomicBackend {
  return new AtomicBackend({
    ctx: {
      networkId: LOCAL.networkId,
      chainId: LOCAL.cChainId,
      avaxAssetId: LOCAL.avaxAssetId,
      xChainId: LOCAL.xChainId,
      sameSubnet: (chain: Hex) => chain === LOCAL.xChainId,
    },
    memory,
    index: undefined,
    now: () => Date.now(),
  })
}

/** What the builder reads of a block run: its env, the gas used so far, an account state. */
function blockRun(): BlockRun {
  const accounts = new Map<string, Account | undefined>()
  const sm = {
    getAccount: async (a: Address) => accounts.get(a.toString()),
    putAccount: async (a: Address, account: Account | undefined) => {
      accounts.set(a.toString(), account)
    },
  }
  return { env: { baseFee: 1n, gasLimit: 15_000_000n }, used: 0n, sm } as unknown as BlockRun
}

const noAncestors = { ancestorsSpent: new Set<Hex>(), ancestorTxs: new Set<Hex>() }

describe('the atomic builder and issueTx replacements', () => {
  it('a tx the builder took is issued at once: a conflict paying more is refused, the block keeps the tx', async () => {
    const taken = importOf(1, 30_000n)
    const other = importOf(2, 20_000n)
    const dearer = importOf(1, 60_000n)
    let refusal: unknown
    let backend: AtomicBackend | undefined
    // read 1: `taken` is verified; read 2: `other` is, after `taken` was taken
    const memory = await memoryWithPreset((n) => {
      if (n !== 2 || backend === undefined) return
      try {
        backend.mempool.add(dearer, true)
      } catch (err) {
        refusal = err
      }
    })
    backend = backendOn(memory)
    backend.mempool.add(taken, true)
    backend.mempool.add(other, true)
    const extras = await backend.builder(noAncestors)(blockRun())
    assert.deepEqual(
      extras.atomic.map((d) => d.id),
      [taken.d.id, other.d.id],
    )
    assert.match(String((refusal as Error)?.message), /^conflict present: issued tx \(/)
    assert.equal(backend.mempool.status(taken.d.id), 'issued')
    assert.equal(backend.mempool.status(other.d.id), 'issued')
    assert.equal(backend.mempool.status(dearer.d.id), undefined)
  })

  it('a tx replaced while the builder verified it is not put in the block; its replacement waits', async () => {
    const cheap = importOf(3, 20_000n)
    const dearer = importOf(3, 40_000n)
    let backend: AtomicBackend | undefined
    const memory = await memoryWithPreset((n) => {
      if (n === 1) backend?.mempool.add(dearer, true)
    })
    backend = backendOn(memory)
    backend.mempool.add(cheap, true)
    const extras = await backend.builder(noAncestors)(blockRun())
    assert.deepEqual(extras.atomic, [])
    assert.equal(extras.extData.length, 0)
    assert.equal(backend.mempool.status(cheap.d.id), 'discarded')
    assert.equal(backend.mempool.status(dearer.d.id), 'pending')
    // the next build takes the replacement
    const next = await backend.builder(noAncestors)(blockRun())
    assert.deepEqual(
      next.atomic.map((d) => d.id),
      [dearer.d.id],
    )
  })
})
