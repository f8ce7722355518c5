/**
 * Transaction admission through the chain actor: a send that finds no command in flight goes at once, what arrives
 * while one is in flight goes as the next command, each submitter gets its own result, a refused command rejects them all, and no ticket stays parked.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createActor, emit, setup } from 'xstate'
import type { ParkedTx, TxAdmission } from '../../../../actors/chains/chain.machine.js'
import { replyError, replyOk } from '../../../../actors/reply.js'
import { admitTickets, submitThroughChain, TxTickets } from '../../../../src/node/tx-admission.js'

const tx = (n: number) => ({ n, hash: () => Uint8Array.of(n) })
type Tx = ReturnType<typeof tx>

/** a chain stand-in: refuses when told to, else admits every transaction but the ones numbered 13 */
function chain(commands: ParkedTx[][], refuse = false) {
  return createActor(
    setup({
      types: { events: {} as { type: 'chain.submitTxs'; requestId: string; txs: ParkedTx[] } },
    }).createMachine({
      on: {
        'chain.submitTxs': {
          actions: [
            ({ event }) => commands.push(event.txs),
            emit(({ event }) =>
              refuse
                ? replyError(event.requestId, 'API call rejected because chain is not done bootstrapping')
                : replyOk(
                    event.requestId,
                    event.txs.map(
                      (t): TxAdmission =>
                        t.hash === '0x0d'
                          ? { ok: false, error: { code: -32000, message: 'nonce too low', data: null } }
                          : { ok: true, hash: t.hash },
                    ),
                  ),
            ),
          ],
        },
      },
    }),
  ).start()
}

describe('transaction admission through the chain actor', () => {
  it('one command in flight; each submitter gets its own result; tickets are dropped', async () => {
    const commands: ParkedTx[][] = []
    const ref = chain(commands)
    const tickets = new TxTickets<Tx>()
    const submit = submitThroughChain(tickets, () => ref)
    const results = await Promise.allSettled([submit(tx(1)), submit(tx(13)), submit(tx(2))])
    assert.deepEqual(
      commands.map((c) => c.map((t) => t.hash)),
      [['0x01'], ['0x0d', '0x02']],
    )
    assert.deepEqual(results[0], { status: 'fulfilled', value: '0x01' })
    assert.deepEqual(results[1], {
      status: 'rejected',
      reason: { code: -32000, message: 'nonce too low', data: null },
    })
    assert.deepEqual(results[2], { status: 'fulfilled', value: '0x02' })
    assert.equal(tickets.size, 0)
  })

  it('a refused command rejects every submission with the chain reply', async () => {
    const ref = chain([], true)
    const tickets = new TxTickets<Tx>()
    const submit = submitThroughChain(tickets, () => ref)
    const results = await Promise.allSettled([submit(tx(1)), submit(tx(2))])
    for (const r of results) {
      assert.equal(r.status, 'rejected')
      assert.equal(
        (r as PromiseRejectedResult).reason.message,
        'API call rejected because chain is not done bootstrapping',
      )
    }
    assert.equal(tickets.size, 0)
  })

  it('admitTickets starts admissions in order and answers one result each', async () => {
    const tickets = new TxTickets<Tx>()
    const a = tickets.park(tx(1))
    const b = tickets.park(tx(2))
    const order: number[] = []
    const out = await admitTickets(
      {
        type: 'chain.admitTxs',
        requestId: 'r',
        txs: [
          { ticket: a, hash: '0x01' },
          { ticket: b, hash: '0x02' },
          { ticket: 99, hash: '0x63' },
        ],
      },
      tickets,
      async (t) => {
        order.push(t.n)
        if (t.n === 2) throw new Error('already known')
        return `0x0${t.n}`
      },
    )
    assert.deepEqual(order, [1, 2])
    assert.deepEqual(out.results, [
      { ok: true, hash: '0x01' },
      { ok: false, error: { code: -32000, message: 'already known', data: null } },
      { ok: false, error: { code: -32000, message: 'transaction no longer waiting', data: null } },
    ])
  })
})
