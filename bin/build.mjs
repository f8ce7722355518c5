// The node's compiled form: every TypeScript file of src/, actors/ and protocols/ transpiled by esbuild to
// build/<same path>.js (no bundling: the tree keeps its shape, so `import.meta.url` paths and the packages in
// node_modules resolve as from the sources), the other files of those trees copied. `firn` (bin/firn.js) runs it
// with plain node: no loader thread (tsx's hooks run in a second V8 isolate, ~33 MB), no transpiling at startup.
// A build is current when it is newer than every source file; `ensureBuild` makes one when it is not.
import { copyFile, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const BUILD = join(ROOT, 'build')
const TREES = ['src', 'actors', 'protocols']
const STAMP = join(BUILD, '.built')
/** the compiled entry point */
export const BUILT_ENTRY = join(BUILD, 'src', 'bin', 'firn.js')

async function* files(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* files(path)
    else if (entry.isFile()) yield path
  }
}

async function sources() {
  const out = []
  for (const tree of TREES) for await (const path of files(join(ROOT, tree))) out.push(path)
  return out
}

const mtime = (path) =>
  stat(path).then(
    (s) => s.mtimeMs,
    () => 0,
  )

/** true when build/ is newer than every source file (and package.json: dependencies may change what builds) */
export async function isCurrent() {
  const built = await mtime(STAMP)
  if (built === 0) return false
  for (const path of [...(await sources()), join(ROOT, 'package.json')]) if ((await mtime(path)) > built) return false
  return true
}

/**
 * Transpile everything afresh into build/; returns how many files were compiled. The new build is made beside
 * the old one and swapped in by renames, so a node starting meanwhile loads one whole build or the other.
 */
export async function build() {
  const { build: esbuild } = await import('esbuild')
  const all = await sources()
  const ts = all.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'))
  const fresh = `${BUILD}.new-${process.pid}`
  await rm(fresh, { recursive: true, force: true })
  await esbuild({
    entryPoints: ts,
    outdir: fresh,
    outbase: ROOT,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'error',
  })
  for (const path of all.filter((p) => !p.endsWith('.ts'))) {
    const to = join(fresh, relative(ROOT, path))
    await mkdir(dirname(to), { recursive: true })
    await copyFile(path, to)
  }
  await writeFile(join(fresh, '.built'), `${new Date().toISOString()}\n`)
  const old = `${BUILD}.old-${process.pid}`
  await rename(BUILD, old).catch(() => {})
  await rename(fresh, BUILD)
  await rm(old, { recursive: true, force: true })
  return ts.length
}

/** The compiled entry point, built first when the build is missing or older than a source file. */
export async function ensureBuild() {
  if (!(await isCurrent())) await build()
  return BUILT_ENTRY
}

// `node bin/build.mjs`: build now
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now()
  const n = await build()
  console.log(`built ${n} files into build/ in ${Math.round(performance.now() - started)} ms`)
}
