/**
 * scripts/network.ts against real processes: `start` brings up five firn nodes with the local genesis stakers'
 * NodeIDs on a free port range in a temp dir, `start` again is refused, `stop` ends every process, twice is fine.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { isRunning, networkLayout, readPid } from '../../scripts/network.js'
import { LOCAL_GENESIS_VALIDATORS } from '../../src/network/validators.js'
import { rpc } from '../helpers/firn-process.js'
import { freeBasePort } from '../helpers/ports.js'

const SCRIPT = fileURLToPath(new URL('../../scripts/network.ts', import.meta.url))
const TSX = import.meta.resolve('tsx')

function runScript(command: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['--import', TSX, SCRIPT, command], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    proc.stdout.on('data', (d) => {
      output += d
    })
    proc.stderr.on('data', (d) => {
      output += d
    })
    const timer = setTimeout(() => proc.kill('SIGKILL'), 180_000)
    proc.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

describe('scripts/network.ts', () => {
  let env: NodeJS.ProcessEnv
  let layout: ReturnType<typeof networkLayout>
  const pids: number[] = []

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'firn-network-'))
    env = { FIRN_NETWORK_DIR: dir, FIRN_NETWORK_BASE_PORT: String(await freeBasePort(20_000, 40_000)) }
    layout = networkLayout(env)
  })

  // runs even when a test failed: stop through the script, then SIGKILL whatever is left, then remove the data
  after(async () => {
    if (!env) return
    await runScript('stop', env)
    for (const pid of pids) {
      if (await isRunning(pid)) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {}
      }
    }
    await rm(env.FIRN_NETWORK_DIR!, { recursive: true, force: true })
  })

  it('start: five nodes serve with the local genesis NodeIDs on the configured ports', async () => {
    const { code, output } = await runScript('start', env)
    for (const node of layout.nodes) {
      const pid = await readPid(node)
      if (pid !== undefined) pids.push(pid)
    }
    assert.equal(code, 0, output)
    assert.equal(pids.length, 5)
    const base = Number(env.FIRN_NETWORK_BASE_PORT)
    for (const [i, node] of layout.nodes.entries()) {
      assert.equal(node.httpPort, base + 10 * i)
      assert.equal(node.stakingPort, base + 10 * i + 1)
      assert.ok(await isRunning(pids[i]!), `${node.name} running`)
      const reply = await rpc(`http://127.0.0.1:${node.httpPort}/ext/info`, 'info.getNodeID')
      assert.equal((reply.body.result as { nodeID: string }).nodeID, LOCAL_GENESIS_VALIDATORS[i])
      const ip = await rpc(`http://127.0.0.1:${node.httpPort}/ext/info`, 'info.getNodeIP')
      assert.deepEqual(ip.body.result, { ip: `127.0.0.1:${node.stakingPort}` })
      assert.match(
        output,
        new RegExp(`${node.name} +${LOCAL_GENESIS_VALIDATORS[i]} +http://127\\.0\\.0\\.1:${node.httpPort}`),
      )
    }
  })

  it('start again is refused while running', async () => {
    const { code, output } = await runScript('start', env)
    assert.equal(code, 1)
    assert.match(output, /the local network is already running: node1 \(pid \d+\)/)
  })

  it('status lists the five nodes as running', async () => {
    const { code, output } = await runScript('status', env)
    assert.equal(code, 0, output)
    assert.equal(output.match(/ running /g)?.length, 5, output)
  })

  it('stop: every process exits and the pid files are gone; stop again is a no-op', async () => {
    const { code, output } = await runScript('stop', env)
    assert.equal(code, 0, output)
    assert.equal(pids.length, 5)
    for (const pid of pids) assert.equal(await isRunning(pid), false, `pid ${pid} still running`)
    for (const node of layout.nodes) assert.equal(await readPid(node), undefined)
    const again = await runScript('stop', env)
    assert.equal(again.code, 0)
    assert.match(again.output, /the local network is not running/)
  })
})
