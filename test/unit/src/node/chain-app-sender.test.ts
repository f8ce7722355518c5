/**
 * A chain VM's app sender over the chain router (src/node/chain-app-sender.ts): requests and gossip go out under
 * the chain's ID, an AppError that comes back reaches the VM as the interface's AppError, other failures as they are.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AppError } from '../../../../src/chains/vm.js'
import { AppRequestError } from '../../../../src/network/chain-router.js'
import { chainAppSender } from '../../../../src/node/chain-app-sender.js'

describe('chainAppSender', () => {
  it('sends under the chain ID and turns AppErrors into the interface type', async () => {
    const calls: string[] = []
    let answer: () => Promise<Uint8Array> = () => Promise.resolve(Uint8Array.of(7))
    const sender = chainAppSender(
      {
        appRequest: (nodeId, chainId) => {
          calls.push(`request ${nodeId} ${chainId}`)
          return answer()
        },
        appGossip: (nodeIds, chainId) => void calls.push(`gossip ${nodeIds.join(',')} ${chainId}`),
        connectedNodeIds: () => ['NodeID-a'],
      },
      'chain-x',
      () => [{ nodeId: 'NodeID-a', weight: 5n }],
    )
    assert.deepEqual([...(await sender.request('NodeID-a', Uint8Array.of(1)))], [7])
    sender.gossip(['NodeID-a', 'NodeID-b'], Uint8Array.of(2))
    assert.deepEqual(calls, ['request NodeID-a chain-x', 'gossip NodeID-a,NodeID-b chain-x'])
    assert.deepEqual(sender.connected(), ['NodeID-a'])
    assert.deepEqual(sender.validators(), [{ nodeId: 'NodeID-a', weight: 5n }])

    answer = () => Promise.reject(new AppRequestError(-3, 'not a validator'))
    await assert.rejects(
      sender.request('NodeID-a', Uint8Array.of(1)),
      (err: unknown) => err instanceof AppError && err.code === -3 && err.message === 'not a validator',
    )
    answer = () => Promise.reject(new Error('timeout'))
    await assert.rejects(sender.request('NodeID-a', Uint8Array.of(1)), /timeout/)
  })
})
