/**
 * The node actor: its children (profiler, network, one chain per input chain) with systemIds, and `node.loadVMs`
 * as a command answered by a reply: one load at a time, commands during a load answered by the next, errors
 * as replies, and pending commands answered when the node shuts down.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EMPTY, NEVER, type Observable } from 'rxjs'
import { createActor, fromEventObservable, fromPromise } from 'xstate'
import { type AwaitVmInput, type ChainEvent, chainMachine } from '../../../actors/chains/chain.machine.js'
import { type LoadVmsResult, nodeMachine } from '../../../actors/node.machine.js'
import { type NetworkEvent, networkMachine } from '../../../actors/peers/network.machine.js'
import type { Reply } from '../../../actors/reply.js'
import { SystemId } from '../../../actors/system-ids.js'

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'

function start(load: () => Promise<LoadVmsResult>) {
  const logic = nodeMachine.provide({
    actors: {
      loadVMs: fromPromise(load),
      network: networkMachine.provide({
        actors: { connections: fromEventObservable(() => EMPTY as Observable<NetworkEvent>) },
      }),
      chain: chainMachine.provide({
        actors: {
          awaitVm: fromPromise<void, AwaitVmInput>(async () => undefined),
          initializeChain: fromPromise(() => new Promise(() => {})),
          chainIo: fromEventObservable(() => NEVER as Observable<ChainEvent>),
        },
      }),
    },
  })
  const actor = createActor(logic, {
    systemId: SystemId.Node,
    input: {
      nodeId: NODE,
      networkId: 12345,
      network: { selfNodeId: NODE, sybilProtection: false, validatorIds: [NODE], startedAt: 0 },
      chains: [{ chainId: 'chainC', alias: 'C', vm: 'evm', nodeId: NODE }],
    },
  })
  const replies: Reply[] = []
  actor.on('reply', (r) => replies.push(r as Reply))
  actor.start()
  return { actor, replies }
}

const tick = () => new Promise((r) => setImmediate(r))

describe('node actor', () => {
  it('spawns the profiler, the network and the chains under their systemIds', () => {
    const { actor } = start(async () => ({ newVMs: {} }))
    for (const id of [
      SystemId.Node,
      SystemId.Profiler,
      SystemId.Network,
      SystemId.chain('C'),
      SystemId.benchlist('C'),
    ]) {
      assert.ok(actor.system.get(id), id)
    }
    assert.equal(actor.getSnapshot().context.network, null, 'the network input is handed over, not kept')
    assert.deepEqual(JSON.parse(JSON.stringify(actor.getSnapshot().context)), actor.getSnapshot().context)
    actor.stop()
  })

  it('node.loadVMs: one load at a time, later commands answered by the next load, in order', async () => {
    let loads = 0
    const gates: (() => void)[] = []
    const { actor, replies } = start(async (): Promise<LoadVmsResult> => {
      loads++
      const n = loads
      await new Promise<void>((r) => gates.push(r))
      return { newVMs: n === 1 ? { vmA: ['a'] } : {} }
    })
    actor.send({ type: 'node.loadVMs', requestId: 'r1' })
    actor.send({ type: 'node.loadVMs', requestId: 'r2' })
    actor.send({ type: 'node.loadVMs', requestId: 'r3' })
    await tick()
    assert.equal(loads, 1)
    gates.shift()?.()
    await tick()
    assert.deepEqual(replies, [{ type: 'reply', requestId: 'r1', ok: true, result: { newVMs: { vmA: ['a'] } } }])
    assert.equal(loads, 2, 'the commands that came during the first load start the second')
    gates.shift()?.()
    await tick()
    assert.deepEqual(
      replies.map((r) => r.requestId),
      ['r1', 'r2', 'r3'],
    )
    assert.deepEqual(actor.getSnapshot().context.loading, [])
    actor.stop()
  })

  it('a failing load is a reply with its message; a shutdown answers the commands still waiting', async () => {
    const failing = start(async () => {
      throw new Error('plugin dir unreadable')
    })
    failing.actor.send({ type: 'node.loadVMs', requestId: 'r1' })
    await tick()
    assert.deepEqual(failing.replies, [
      {
        type: 'reply',
        requestId: 'r1',
        ok: false,
        error: { code: -32000, message: 'plugin dir unreadable', data: null },
      },
    ])
    failing.actor.stop()

    const stuck = start(() => new Promise(() => {}))
    stuck.actor.send({ type: 'node.loadVMs', requestId: 'r1' })
    stuck.actor.send({ type: 'node.loadVMs', requestId: 'r2' })
    stuck.actor.send({ type: 'node.shutdown' })
    assert.deepEqual(
      stuck.replies.map((r) => [r.requestId, r.ok]),
      [
        ['r1', false],
        ['r2', false],
      ],
    )
    stuck.actor.stop()
  })
})
