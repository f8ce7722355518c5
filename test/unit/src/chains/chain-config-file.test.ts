import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { MAX_CHAIN_CONFIG_BYTES, readChainConfig } from '../../../../src/chains/chain-config-file.js'

const ID = '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC'

describe('readChainConfig', () => {
  let dir = ''
  const put = async (name: string, text: string) => {
    await mkdir(join(dir, name), { recursive: true })
    await writeFile(join(dir, name, 'config.json'), text)
  }
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firn-chain-config-'))
  })
  after(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it("'' when the directory or the chain's directories do not exist", async () => {
    assert.equal(await readChainConfig(join(dir, 'nowhere'), ID, ['C', 'evm']), '')
    assert.equal(await readChainConfig(dir, ID, ['C', 'evm']), '')
  })

  it('the first alias directory that exists, in alias order', async () => {
    await put('evm', '{"from":"evm"}')
    assert.equal(await readChainConfig(dir, ID, ['C', 'evm']), '{"from":"evm"}')
    await put('C', '{"from":"C"}')
    assert.equal(await readChainConfig(dir, ID, ['C', 'evm']), '{"from":"C"}')
  })

  it("the chain ID's directory comes first, as in the reference; without config.json it gives ''", async () => {
    await mkdir(join(dir, ID))
    assert.equal(await readChainConfig(dir, ID, ['C', 'evm']), '')
    await writeFile(join(dir, ID, 'config.json'), '{"from":"id"}')
    assert.equal(await readChainConfig(dir, ID, ['C', 'evm']), '{"from":"id"}')
  })

  it('a file where a directory would be is skipped; names that are not one directory are skipped', async () => {
    await writeFile(join(dir, 'F'), 'not a directory')
    assert.equal(await readChainConfig(dir, 'Z', ['F', '..', '../x', '']), '')
  })

  it('errors name the path', async () => {
    await mkdir(join(dir, 'G', 'config.json'), { recursive: true })
    await assert.rejects(readChainConfig(dir, 'Z', ['G']), {
      message: new RegExp(`^couldn't read chain config ${join(dir, 'G', 'config.json')}: EISDIR`),
    })
    await put('H', 'x'.repeat(MAX_CHAIN_CONFIG_BYTES + 1))
    await assert.rejects(readChainConfig(dir, 'Z', ['H']), {
      message: `couldn't read chain config ${join(dir, 'H', 'config.json')}: larger than ${MAX_CHAIN_CONFIG_BYTES} bytes`,
    })
  })
})
