/**
 * geth's message handling (rpc/handler.go `handleMsg`, `handleBatch`, `handleCallMsg`) over a `Session`.
 * A single call is answered once: by its result, or by -32002 when the deadline passes first. A batch runs
 * its calls one after another under one deadline; responses and notifications get no answer; an empty
 * batch, a batch over `batch-request-limit` and the remaining calls once `batch-response-max-size` is
 * passed (or the deadline) get geth's errors. Both batch limits apply only when both are > 0.
 * Every call runs through the endpoint's jayson server (eth-server.ts, calls.ts); batches, deadlines, size caps
 * and invalid messages are handled here, around it, because geth answers them differently from jayson.
 */

import type jayson from 'jayson'
import { ErrorCode } from '../../runtime/errors.js'
import { type CallMeter, runCall } from './calls.js'
import { type Answer, errorAnswer, errorText } from './encode.js'
import { ErrorText } from './errors.js'
import { createEthServer } from './eth-server.js'
import { hasValidId, isCall, isIgnored, isNotification, namespaceOf, type RpcMessage } from './message.js'
import { CallProc, type Session } from './session.js'
import { DEFAULT_BATCH_REQUEST_LIMIT, DEFAULT_BATCH_RESPONSE_MAX_SIZE, type EthRpcOptions } from './types.js'

export interface Dispatcher {
  /**
   * Answers a message or batch; resolves when every call has finished (or was cut off by the deadline). A single
   * call answered synchronously (eth_chainId, a read at a tag's block) is answered before `handle` returns, and
   * then there is no promise (undefined).
   */
  handle(batch: boolean, messages: RpcMessage[], session: Session): Promise<void> | undefined
}

/** geth's `handleCallMsg`: null for a notification; a call answered synchronously is answered without a promise. */
function callMessage(
  server: jayson.Server,
  proc: CallProc,
  msg: RpcMessage,
  session: Session,
  meter: CallMeter | undefined,
): Answer | null | Promise<Answer | null> {
  if (isNotification(msg)) {
    const ran = runCall(server, msg, proc, session, meter)
    return ran instanceof Promise ? ran.then(() => null) : null
  }
  if (isCall(msg)) return runCall(server, msg, proc, session, meter)
  return errorAnswer(hasValidId(msg) ? msg.id : 'null', ErrorCode.invalidRequest, ErrorText.invalidRequest)
}

/** The method names the endpoint serves (eth-server.ts's router): its table, `rpc_modules`, each namespace's
 * subscribe/unsubscribe; anything else is reported as undefined, so callers cannot grow the label set. */
function servedNames(opts: EthRpcOptions): (name: string) => string | undefined {
  const names = new Set<string>(['rpc_modules', 'eth_subscribe', 'eth_unsubscribe'])
  for (const name of opts.methods.keys()) {
    names.add(name)
    const ns = namespaceOf(name)
    names.add(`${ns}_subscribe`)
    names.add(`${ns}_unsubscribe`)
  }
  return (name) => (names.has(name) ? name : undefined)
}

export function createDispatcher(opts: EthRpcOptions): Dispatcher {
  // the dispatcher of every call: one jayson server per endpoint
  const server = createEthServer(opts, opts.log)
  const meter: CallMeter | undefined =
    opts.observer === undefined ? undefined : { observer: opts.observer, served: servedNames(opts) }
  const itemLimit = opts.batchRequestLimit ?? DEFAULT_BATCH_REQUEST_LIMIT
  const sizeLimit = opts.batchResponseMaxSize ?? DEFAULT_BATCH_RESPONSE_MAX_SIZE
  const limited = itemLimit > 0 && sizeLimit > 0
  const log = opts.log

  const handleSingle = (msg: RpcMessage, session: Session): Promise<void> | undefined => {
    if (isIgnored(msg)) {
      log?.debug('unsolicited JSON-RPC message dropped', { method: msg.method, id: msg.id })
      return undefined
    }
    let responded = false
    const proc = new CallProc(session, () => {
      responded = true
      session.write(errorText(msg.id, ErrorCode.timeout, ErrorText.timeout), true)
    })
    const done = (answer: Answer | null): void => {
      proc.stopTimer()
      if (answer !== null && !responded) {
        responded = true
        session.write(answer.text, false)
      }
      proc.finish()
    }
    const answer = callMessage(server, proc, msg, session, meter)
    if (answer instanceof Promise) return answer.then(done)
    done(answer)
    return undefined
  }

  const handleBatch = async (msgs: RpcMessage[], session: Session): Promise<void> => {
    if (msgs.length === 0) {
      session.write(errorText('null', ErrorCode.invalidRequest, ErrorText.emptyBatch), true)
      return
    }
    if (limited && msgs.length > itemLimit) {
      const id = msgs.find(isCall)?.id ?? 'null'
      session.write(`[${errorText(id, ErrorCode.invalidRequest, ErrorText.batchTooLarge)}]`, true)
      return
    }
    const calls = msgs.filter((m) => {
      if (!isIgnored(m)) return true
      log?.debug('unsolicited JSON-RPC message dropped', { method: m.method, id: m.id })
      return false
    })
    if (calls.length === 0) return
    const out: string[] = []
    let next = 0
    let wrote = false
    /** what geth's `respondWithError` does: answers so far, then `message` for every call not yet answered */
    const respondWithError = (code: number, message: string): void => {
      if (wrote) return
      wrote = true
      for (let j = next; j < calls.length; j++) {
        const m = calls[j]!
        if (!isNotification(m)) out.push(errorText(m.id, code, message))
      }
      if (out.length > 0) session.write(`[${out.join(',')}]`, true)
    }
    const proc = new CallProc(session, () => respondWithError(ErrorCode.timeout, ErrorText.timeout))
    let responseBytes = 0
    while (next < calls.length && !proc.aborted) {
      const answer = await callMessage(server, proc, calls[next]!, session, meter)
      if (wrote) break
      next++
      if (answer === null) continue
      out.push(answer.text)
      responseBytes += answer.resultBytes
      if (limited && responseBytes > sizeLimit) {
        respondWithError(ErrorCode.responseTooLarge, ErrorText.responseTooLarge)
        break
      }
    }
    proc.stopTimer()
    if (!wrote) {
      wrote = true
      if (out.length > 0) session.write(`[${out.join(',')}]`, false)
    }
    proc.finish()
  }

  return {
    handle: (batch, messages, session) =>
      batch ? handleBatch(messages, session) : handleSingle(messages[0]!, session),
  }
}
