/**
 * `<ns>_subscribe` and `<ns>_unsubscribe` (geth rpc/handler.go `handleSubscribe`, rpc/subscription.go): the
 * server's own methods in every namespace, which need the connection (its `SubscriptionSet`) from the call's
 * context. Subscription kinds live in the `eth` namespace; over HTTP there are none to make.
 */
import { checkArity, goJsonKind, invalidArgument } from '../../rpc/eth-args.js'
import type { SubscriptionStart, SubscriptionTable } from '../../rpc/eth-types.js'
import { ErrorCode } from '../../runtime/errors.js'
import { toWireError, type WireError } from '../jsonrpc/errors.js'
import { goQuote } from '../jsonrpc/go-text.js'
import type { EthCallback, EthCallContext, EthHandler } from './call-context.js'
import { ErrorText } from './errors.js'
import { namespaceOf } from './message.js'
import { argsOf } from './params.js'
import { ABORTED } from './session.js'

export const SUBSCRIPTION_NAMESPACE = 'eth'

const error = (code: number, message: string): WireError => ({ code, message, data: undefined })

/** geth's `parseSubscriptionName`: params must be an array starting with a string. */
function subscriptionArgs(args: unknown[] | undefined): { name: string; args: unknown[] } | string {
  if (args === undefined) return ErrorText.nonArrayArgs
  const name = args[0]
  if (typeof name !== 'string') return ErrorText.expectedSubscriptionName
  return { name, args: args.slice(1) }
}

async function subscribe(
  kinds: SubscriptionTable,
  args: unknown[] | undefined,
  { msg, proc, session }: EthCallContext,
): Promise<[WireError | null, unknown?]> {
  const subs = session.subscriptions
  if (subs === undefined) return [error(ErrorCode.methodNotFound, ErrorText.notificationsUnsupported)]
  const parsed = subscriptionArgs(args)
  if (typeof parsed === 'string') return [error(ErrorCode.invalidParams, parsed)]
  const namespace = namespaceOf(msg.method)
  const start: SubscriptionStart | undefined =
    namespace === SUBSCRIPTION_NAMESPACE && Object.hasOwn(kinds, parsed.name) ? kinds[parsed.name] : undefined
  if (start === undefined) {
    return [error(ErrorCode.methodNotFound, `no ${goQuote(parsed.name)} subscription in ${namespace} namespace`)]
  }
  const sub = subs.create(namespace)
  if (typeof sub === 'string') return [error(ErrorCode.server, sub)]
  proc.created.push(sub)
  try {
    const started = start(parsed.args, (result) => subs.push(sub, result), proc.ctx)
    const stop = await proc.until(started)
    if (stop === ABORTED) {
      subs.end(sub)
      // a start that finishes later is stopped at once
      Promise.resolve(started).then(
        (late) => subs.attach(sub, late),
        () => {},
      )
      return [error(ErrorCode.timeout, ErrorText.timeout)]
    }
    subs.attach(sub, stop as () => void)
  } catch (err) {
    subs.end(sub)
    return [toWireError(err, 'geth')]
  }
  return [null, sub.id]
}

export function subscribeHandler(kinds: SubscriptionTable): EthHandler {
  return (args, ctx, callback: EthCallback) => {
    subscribe(kinds, args, ctx).then(([err, result]) => callback(err, result))
  }
}

/** geth's `unsubscribe(ctx, id rpc.ID) (bool, error)`. */
export const unsubscribeHandler: EthHandler = (args, { msg, session }, callback) => {
  try {
    const params = argsOf(args, msg.params)
    const id = params[0]
    if (params.length > 0 && id !== null && typeof id !== 'string') {
      throw invalidArgument(0, `json: cannot unmarshal ${goJsonKind(id)} into Go value of type rpc.ID`)
    }
    checkArity(params, 1, 1)
    const removed = session.subscriptions?.remove(typeof id === 'string' ? id : '') ?? false
    if (removed) callback(null, true)
    else callback(error(ErrorCode.server, ErrorText.subscriptionNotFound))
  } catch (err) {
    callback(toWireError(err, 'geth'))
  }
}
