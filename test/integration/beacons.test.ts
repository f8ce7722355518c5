/**
 * A validator of the local network started alone: its C chain waits for 75 % of the stake to connect, reports
 * not bootstrapped, and warns once `--bootstrap-beacon-connection-timeout` has passed (the reference's
 * "failed to connect to bootstrap nodes", naming the validators it is not connected to).
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { startFirn } from '../helpers/firn-process.js'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'staking')

async function cLog(dataDir: string): Promise<string> {
  try {
    return await readFile(join(dataDir, 'logs', 'C.log'), 'utf8')
  } catch {
    return ''
  }
}

describe('beacons', { timeout: 60_000 }, () => {
  it('a lone local validator waits for stake and warns after the beacon connection timeout', async (t) => {
    const node = await startFirn({
      args: [
        '--network-id=local',
        '--staking-host=127.0.0.1',
        `--staking-tls-key-file=${join(FIXTURES, 'staker1.key')}`,
        `--staking-tls-cert-file=${join(FIXTURES, 'staker1.crt')}`,
        `--staking-signer-key-file=${join(FIXTURES, 'signer1.key')}`,
        '--bootstrap-beacon-connection-timeout=1s',
      ],
    })
    t.after(() => node.cleanup())
    const deadline = Date.now() + 30_000
    let log = ''
    while (!log.includes('failed to connect to bootstrap nodes') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200))
      log = await cLog(node.dataDir)
    }
    const line = log.split('\n').find((l) => l.includes('failed to connect to bootstrap nodes'))
    assert.ok(line, `no warning in C.log:\n${log}`)
    assert.match(line, /WARN/)
    assert.match(line, /"duration":"1s"/)
    assert.match(line, /"beacons":4/)
    // the four other genesis validators, none connected
    assert.equal(line.match(/NodeID-/g)?.length, 4, line)
    const reply = await node.rpc('/ext/info', 'info.isBootstrapped', { chain: 'C' })
    assert.deepEqual(reply.body.result, { isBootstrapped: false })
    // once only
    await new Promise((r) => setTimeout(r, 1500))
    const again = (await cLog(node.dataDir))
      .split('\n')
      .filter((l) => l.includes('failed to connect to bootstrap nodes'))
    assert.equal(again.length, 1)
  })
})
