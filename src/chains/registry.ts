/**
 * The chain registry: which chains this node knows (genesis aliases from the network preset, then
 * `--chain-aliases-file`), which ones it has created (runs), and their primary aliases. Created chains get
 * their own ID string as an alias, as the reference does.
 */
import { readFile } from 'node:fs/promises'
import { type ChainIds, GENESIS_CHAIN_ALIASES } from '../config/chain-ids.js'
import { Aliaser } from './aliaser.js'

export interface ChainEntry {
  chainId: string
  /** primary alias: `C`, or the chain ID string */
  alias: string
  vmId: string
}

export class ChainRegistry {
  readonly aliaser = new Aliaser()
  private readonly created = new Map<string, ChainEntry>()

  constructor(readonly ids: ChainIds) {
    for (const key of ['P', 'X', 'C'] as const) {
      for (const alias of GENESIS_CHAIN_ALIASES[key]) this.aliaser.alias(ids[key], alias)
    }
  }

  /** Add the aliases of a `--chain-aliases-file` (`{"<chainID>": ["alias", ...]}`). */
  async loadAliasesFile(path: string, required: boolean): Promise<void> {
    let text: string
    try {
      text = await readFile(path, 'utf8')
    } catch (err) {
      if (!required && (err as NodeJS.ErrnoException).code === 'ENOENT') return
      throw new Error(`couldn't read chain aliases file ${path}: ${(err as Error).message}`)
    }
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch (err) {
      throw new Error(`couldn't parse chain aliases file ${path}: ${(err as Error).message}`)
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      throw new Error(`couldn't parse chain aliases file ${path}: expected {"<chainID>": ["alias", ...]}`)
    }
    for (const [chainId, aliases] of Object.entries(doc)) {
      if (!Array.isArray(aliases) || !aliases.every((a) => typeof a === 'string')) {
        throw new Error(`couldn't parse chain aliases file ${path}: aliases of ${chainId} must be strings`)
      }
      for (const a of aliases) this.aliaser.alias(chainId, a)
    }
  }

  /** Record that this node runs a chain; its ID string becomes one of its aliases. */
  create(chainId: string, vmId: string): ChainEntry {
    const existing = this.created.get(chainId)
    if (existing) return existing
    if (this.aliaser.tryLookup(chainId) === undefined) this.aliaser.alias(chainId, chainId)
    const entry: ChainEntry = { chainId, vmId, alias: this.aliaser.primaryAlias(chainId) }
    this.created.set(chainId, entry)
    return entry
  }

  get(chainId: string): ChainEntry | undefined {
    return this.created.get(chainId)
  }

  list(): ChainEntry[] {
    return [...this.created.values()]
  }
}
