/**
 * The import rules of the house: actors/ and protocols/ are pure (no IO, no src/), and only the entry points
 * import the runtime polyfill.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

function tsFiles(dir: string): string[] {
  let out: string[] = []
  let entries: string[]
  try {
    entries = readdirSync(dir)
  } catch {
    return out
  }
  for (const name of entries) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out = out.concat(tsFiles(p))
    else if (p.endsWith('.ts')) out.push(p)
  }
  return out
}

const importsOf = (file: string): string[] =>
  [
    ...readFileSync(file, 'utf8').matchAll(
      /(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]/g,
    ),
  ].map((m) => (m[1] ?? m[2]) as string)

const FORBIDDEN =
  /^(node:|fs$|path$|http$|net$|level$|classic-level|memory-level|abstract-level|libp2p|@libp2p\/(?!interface)|@ethereumjs\/|jayson)/

describe('architecture', () => {
  for (const top of ['actors', 'protocols']) {
    it(`${top}/ imports no IO modules and nothing from src/`, () => {
      const bad: string[] = []
      for (const file of tsFiles(join(ROOT, top))) {
        for (const spec of importsOf(file)) {
          const escapesToSrc = spec.startsWith('.') && relative(ROOT, join(dirname(file), spec)).startsWith('src')
          if (FORBIDDEN.test(spec) || escapesToSrc) bad.push(`${relative(ROOT, file)} -> ${spec}`)
        }
      }
      assert.deepEqual(bad, [])
    })
  }

  it('the polyfill is imported only by entry points', () => {
    const bad = tsFiles(join(ROOT, 'src'))
      .filter((f) => !f.includes(join('src', 'bin')) && !f.endsWith(join('runtime', 'polyfill.ts')))
      .filter((f) => importsOf(f).some((s) => s.endsWith('runtime/polyfill.js')))
      .map((f) => relative(ROOT, f))
    assert.deepEqual(bad, [])
  })

  it('the scan finds the machines it checks', () => {
    assert.ok(tsFiles(join(ROOT, 'actors')).some((f) => f.endsWith('node.machine.ts')))
  })
})
