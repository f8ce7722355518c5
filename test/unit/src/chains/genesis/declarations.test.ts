import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { deriveChainId } from '../../../../../src/chains/genesis/chain-id.js'
import { parseChainDeclarations } from '../../../../../src/chains/genesis/declarations.js'
import { GenesisFieldError } from '../../../../../src/chains/genesis/json-node.js'
import { EVM_ID } from '../../../../../src/chains/vm-registry.js'
import { chainIds } from '../../../../../src/config/chain-ids.js'

const ids = chainIds(12345)
const ctx = {
  networkId: 12345,
  dev: true,
  takenIds: new Map([
    [ids.P, 'the P chain'],
    [ids.X, 'the X chain'],
    [ids.C, 'the C chain'],
  ]),
}
const evmGenesis = { config: { chainId: 99999 }, gasLimit: '0x7A1200', alloc: {} }
const D = { name: 'D', vm: 'evm', genesis: evmGenesis }
const parse = (chains: unknown) => parseChainDeclarations(chains, ctx)
/** A CB58 ID no network uses. */
const SOME_ID = deriveChainId(1, 'x', 'y', null)

function fails(chains: unknown, path: string, problem: RegExp | string) {
  assert.throws(
    () => parse(chains),
    (err: unknown) => {
      assert.ok(err instanceof GenesisFieldError, `not a GenesisFieldError: ${err}`)
      assert.equal(err.path, path)
      if (typeof problem === 'string') assert.equal(err.problem, problem)
      else assert.match(err.problem, problem)
      return true
    },
  )
}

describe('parseChainDeclarations', () => {
  it('resolves each entry: the name is the alias, the vm and genesis as declared, the ID derived or given', () => {
    const kv = { name: 'kv_chain-1', vm: 'kvvm', genesis: { anything: [1, 'two'] }, id: SOME_ID }
    assert.deepEqual(parse([D, kv]), [
      { chainId: deriveChainId(12345, 'D', 'evm', evmGenesis), alias: 'D', vm: 'evm', genesis: evmGenesis },
      { chainId: SOME_ID, alias: 'kv_chain-1', vm: 'kvvm', genesis: kv.genesis },
    ])
    assert.deepEqual(parse(undefined), [])
    assert.deepEqual(parse([]), [])
  })

  it('a plugin VM named by CB58 ID, and any JSON genesis (null included) for a plugin VM', () => {
    const [chain] = parse([{ name: 'E', vm: SOME_ID, genesis: null }])
    assert.equal(chain?.vm, SOME_ID)
    assert.equal(chain?.genesis, null)
  })

  it("checks the EVM's genesis, by name or by the EVM's VM ID, and names the field inside it", () => {
    fails([{ ...D, genesis: { ...evmGenesis, gasLimit: 'x' } }], 'chains[0].genesis.gasLimit', /invalid hex or decimal/)
    fails([{ ...D, vm: EVM_ID, genesis: {} }], 'chains[0].genesis.config', 'genesis has no chain configuration')
    fails([{ ...D, genesis: 5 }], 'chains[0].genesis', /expected a JSON object/)
  })

  it('the list and its entries', () => {
    fails({}, 'chains', /expected an array/)
    fails(
      Array.from({ length: 65 }, (_, i) => ({ ...D, name: `c${i}` })),
      'chains',
      'at most 64 chains, got 65',
    )
    fails(['D'], 'chains[0]', /expected an object/)
    fails([{ ...D, alias: 'x' }], 'chains[0].alias', /^unknown field/)
    fails([{ name: 'D', vm: 'evm' }], 'chains[0].genesis', /missing/)
  })

  it('names: 1 to 64 of [A-Za-z0-9_-], not the genesis aliases, unique, not a chain ID', () => {
    for (const bad of ['', 'a'.repeat(65), 'with space', 'slash/', 'dot.', 7]) {
      fails([{ ...D, name: bad }], 'chains[0].name', /expected 1 to 64 characters/)
    }
    assert.equal(parse([{ ...D, name: 'a'.repeat(64) }]).length, 1)
    for (const reserved of ['P', 'platform', 'X', 'avm', 'C', 'evm']) {
      fails([{ ...D, name: reserved }], 'chains[0].name', `${reserved} is an alias of the network's own chains`)
    }
    fails([D, { ...D, genesis: { ...evmGenesis, gasLimit: 1 } }], 'chains[1].name', '"D" is declared twice')
    fails(
      [
        { ...D, name: 'E', id: SOME_ID },
        { ...D, name: SOME_ID },
      ],
      'chains[1].name',
      `${SOME_ID} is the ID of chain E`,
    )
  })

  it('vm: "evm", an alias or an ID of 1 to 64 of [A-Za-z0-9_.-]', () => {
    for (const bad of ['', 'a'.repeat(65), 'my vm', null]) fails([{ ...D, vm: bad }], 'chains[0].vm', /expected "evm"/)
  })

  it('ids: valid CB58, unique, not the network chains', () => {
    fails([{ ...D, id: 'notanid' }], 'chains[0].id', /^invalid chain ID "notanid": /)
    fails([{ ...D, id: 12 }], 'chains[0].id', /expected a CB58 chain ID string/)
    fails([{ ...D, id: ids.C }], 'chains[0].id', `${ids.C} is already the ID of the C chain`)
    fails([{ ...D, id: ids.P }], 'chains[0].id', `${ids.P} is already the ID of the P chain`)
    fails(
      [
        { ...D, id: SOME_ID },
        { ...D, name: 'E', id: SOME_ID },
      ],
      'chains[1].id',
      `${SOME_ID} is already the ID of chain D`,
    )
  })
})
