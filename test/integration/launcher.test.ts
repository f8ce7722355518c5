/**
 * The `firn` command (bin/firn.js): it runs the compiled node (bin/build.mjs), rebuilt when a source file is newer
 * than the build, in its own process (one process, no loader thread), and that node serves as the sources do.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { readFile, stat, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, it } from 'node:test'
// @ts-expect-error: a plain JavaScript module without types
import { BUILD, BUILT_ENTRY, ensureBuild, isCurrent, ROOT } from '../../bin/build.mjs'
import { startFirn } from '../helpers/firn-process.js'

describe('firn launcher', () => {
  it('rebuilds when a source is newer than the build, and runs the compiled node in its own process', async (t) => {
    await ensureBuild()
    assert.equal(await isCurrent(), true)
    // a source newer than the build makes it stale (the build's stamp is dated before the entry's source); the
    // command rebuilds before it starts
    const source = (await stat(join(ROOT, 'src', 'bin', 'firn.ts'))).mtime
    const before = new Date(source.getTime() - 1_000)
    await utimes(join(BUILD, '.built'), before, before)
    assert.equal(await isCurrent(), false)
    const node = await startFirn({ launcher: 'firn', args: ['--dev', '--log-display-level=info'], timeoutMs: 60_000 })
    t.after(() => node.cleanup())
    assert.equal(await isCurrent(), true, 'rebuilt')
    const cmdline = (await readFile(`/proc/${node.pid}/cmdline`, 'utf8')).split('\0')
    assert.ok(
      cmdline.some((a: string) => a.endsWith(join('bin', 'firn.js'))),
      'the node runs in the command process',
    )
    assert.ok(!cmdline.includes('--import'), 'without a loader')
    const reply = await node.rpc('/ext/bc/C/rpc', 'eth_chainId', [])
    assert.equal(reply.body.result, '0xa868')
    assert.ok((await stat(BUILT_ENTRY)).isFile())
  })
})
