/**
 * geth's JSON-RPC texts (coreth `graft/evm/rpc/errors.go`), copied to the letter. Codes are the shared ones
 * of src/runtime/errors.ts; thrown values become error objects in src/api/jsonrpc/errors.ts (`geth` dialect).
 */
import { ErrorCode, FirnError } from '../../runtime/errors.js'

export const ErrorText = {
  timeout: 'request timed out',
  responseTooLarge: 'response too large',
  batchTooLarge: 'batch too large',
  emptyBatch: 'empty batch',
  invalidRequest: 'invalid request',
  parse: 'parse error',
  notificationsUnsupported: 'notifications not supported',
  subscriptionNotFound: 'subscription not found',
  nonArrayArgs: 'non-array args',
  expectedSubscriptionName: 'expected subscription name as first argument',
  tooManySubscriptions: 'too many subscriptions on this connection',
} as const

export const methodNotFound = (method: string): FirnError =>
  new FirnError(`the method ${method} does not exist/is not available`, ErrorCode.methodNotFound)
