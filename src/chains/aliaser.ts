/**
 * Chain aliases, the reference's way (ids/aliases.go): an ID has many aliases, an alias maps to one ID, the
 * primary alias is the first one added. Texts are the reference's.
 */
import { FirnError } from '../runtime/errors.js'

export class Aliaser {
  private readonly byAlias = new Map<string, string>()
  private readonly byId = new Map<string, string[]>()

  /** The ID an alias names: `there is no ID with alias: <a>` otherwise. */
  lookup(alias: string): string {
    const id = this.byAlias.get(alias)
    if (id === undefined) throw new FirnError(`there is no ID with alias: ${alias}`)
    return id
  }

  tryLookup(alias: string): string | undefined {
    return this.byAlias.get(alias)
  }

  /** Every alias of an ID in insertion order, or undefined when it has none. */
  aliases(id: string): string[] | undefined {
    const list = this.byId.get(id)
    return list ? [...list] : undefined
  }

  primaryAlias(id: string): string {
    const first = this.byId.get(id)?.[0]
    if (first === undefined) throw new FirnError(`there is no alias for ID: ${id}`)
    return first
  }

  alias(id: string, alias: string): void {
    if (this.byAlias.has(alias)) throw new FirnError(`alias already mapped to an ID: ${alias}`)
    this.byAlias.set(alias, id)
    const list = this.byId.get(id)
    if (list) list.push(alias)
    else this.byId.set(id, [alias])
  }
}
