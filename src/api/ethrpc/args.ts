/**
 * geth's positional-argument errors (rpc/json.go `parsePositionalArguments`), for handlers that take
 * `params: unknown[]`: all are -32602. geth checks argument by argument, so a bad argument 0 is reported
 * before "too many arguments"; call `invalidArgument` for each argument first, then `checkArity`.
 */
import { ErrorCode, ErrorText, EthRpcError, invalidParams } from './errors.js'

/** `params` -> the argument list: absent or null is [], anything but an array is `non-array args`. */
export function positionalParams(raw: string | undefined): unknown[] {
  if (raw === undefined) return []
  const first = raw.charCodeAt(0)
  if (first === 0x6e) return [] // null
  if (first !== 0x5b) throw invalidParams(ErrorText.nonArrayArgs)
  return JSON.parse(raw) as unknown[]
}

/**
 * Throws geth's error when `params` has more than `max` or fewer than `required` arguments. `offset` shifts
 * the reported indexes (subscription arguments come after the subscription name, argument 0).
 */
export function checkArity(params: readonly unknown[], required: number, max: number, offset = 0): void {
  if (params.length > max) throw invalidParams(`too many arguments, want at most ${max + offset}`)
  if (params.length < required) throw invalidParams(`missing value for required argument ${params.length + offset}`)
}

/** `invalid argument <i>: <reason>` (-32602). */
export const invalidArgument = (index: number, reason: string): EthRpcError =>
  new EthRpcError(ErrorCode.invalidParams, `invalid argument ${index}: ${reason}`)

/** Go's JSON type name of a decoded value, as in `json: cannot unmarshal <kind> into Go value of type T`. */
export function goJsonKind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'boolean') return 'bool'
  return typeof value
}
