/**
 * The import rules of the house: actors/ and protocols/ are pure (no IO, no src/), src/chains never imports
 * src/api (a chain hands its handlers to the node), no import cycles, and only the entry points import the
 * runtime polyfill.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve, sep } from 'node:path'
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

/** Block comments and whole-line comments go first, so an import written in a comment is no import. */
const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')

/** Every module specifier: `import ... from`, `import type ... from`, `export ... from`, `import('x')`, `import 'x'`. */
const importsOf = (file: string): string[] =>
  [
    ...withoutComments(readFileSync(file, 'utf8')).matchAll(
      /(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]|import\s+['"]([^'"]+)['"]/g,
    ),
  ].map((m) => (m[1] ?? m[2] ?? m[3]) as string)

/** The repo files a file imports through relative specifiers (`./x.js` names `./x.ts`). */
function localImports(file: string, known: ReadonlySet<string>): string[] {
  return importsOf(file)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
    .filter((target) => known.has(target))
}

/** Strongly connected components with more than one file (or a file importing itself): Tarjan's algorithm. */
function importCycles(files: readonly string[]): string[][] {
  const known = new Set(files)
  const edges = new Map(files.map((f) => [f, localImports(f, known)]))
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (v: string): void => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v)!) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!))
      }
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      component.push(relative(ROOT, w))
    } while (w !== v)
    if (component.length > 1 || edges.get(v)!.includes(v)) cycles.push(component.sort())
  }
  for (const f of files) if (!index.has(f)) visit(f)
  return cycles
}

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

  it('src/chains imports nothing from src/api (a chain hands its handlers to the node)', () => {
    const api = join(ROOT, 'src', 'api')
    const bad: string[] = []
    for (const file of tsFiles(join(ROOT, 'src', 'chains'))) {
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue
        const target = resolve(dirname(file), spec)
        if (target === api || target.startsWith(api + sep)) bad.push(`${relative(ROOT, file)} -> ${spec}`)
      }
    }
    assert.deepEqual(bad, [])
  })

  it('no import cycles in src/, actors/ and protocols/ (import type and export ... from count)', () => {
    const files = ['src', 'actors', 'protocols'].flatMap((top) => tsFiles(join(ROOT, top)))
    const cycles = importCycles(files)
    assert.deepEqual(cycles, [], `import cycles:\n${cycles.map((c) => `  ${c.join(' <-> ')}`).join('\n')}`)
  })

  it('the cycle check sees import type, export ... from and comments for what they are', () => {
    const dir = mkdtempSync(join(tmpdir(), 'firn-cycles-'))
    try {
      const write = (name: string, text: string): string => {
        writeFileSync(join(dir, name), text)
        return join(dir, name)
      }
      const files = [
        write('a.ts', "import type { B } from './b.js'\nexport type A = B\n"),
        write('b.ts', "export * from './c.js'\nexport type B = 1\n"),
        write('c.ts', "/** import { A } from './a.js' */\n// import './b.js'\nexport * from './a.js'\n"),
        write('d.ts', "import { x } from './e.js'\n"),
        write('e.ts', '// import { y } from "./d.js"\nexport const x = 1\n'),
      ]
      assert.deepEqual(
        importCycles(files).map((cycle) => cycle.map((f) => f.slice(f.lastIndexOf(sep) + 1))),
        [['a.ts', 'b.ts', 'c.ts']],
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("the polyfill is imported only by entry points (src/bin, and worker threads' modules: *-worker.ts)", () => {
    const bad = tsFiles(join(ROOT, 'src'))
      .filter((f) => !f.includes(join('src', 'bin')) && !f.endsWith(join('runtime', 'polyfill.ts')))
      .filter((f) => !f.endsWith('-worker.ts'))
      .filter((f) => importsOf(f).some((s) => s.endsWith('runtime/polyfill.js')))
      .map((f) => relative(ROOT, f))
    assert.deepEqual(bad, [])
  })

  it('the scan finds the machines it checks', () => {
    assert.ok(tsFiles(join(ROOT, 'actors')).some((f) => f.endsWith('node.machine.ts')))
  })
})
