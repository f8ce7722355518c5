/**
 * geth's argument errors (rpc/json.go `parsePositionalArguments`), for handlers that take `params: unknown[]`:
 * all are -32602. geth checks argument by argument, so a bad argument 0 is reported before "too many
 * arguments"; call `invalidArgument` for each argument first, then `checkArity`.
 */
import { ErrorCode, FirnError } from '../runtime/errors.js'

/** A -32602 error with `message` as it is. */
export const invalidParams = (message: string): FirnError => new FirnError(message, ErrorCode.invalidParams)

/**
 * Throws geth's error when `params` has more than `max` or fewer than `required` arguments. `offset` shifts
 * the reported indexes (subscription arguments come after the subscription name, argument 0).
 */
export function checkArity(params: readonly unknown[], required: number, max: number, offset = 0): void {
  if (params.length > max) throw invalidParams(`too many arguments, want at most ${max + offset}`)
  if (params.length < required) throw invalidParams(`missing value for required argument ${params.length + offset}`)
}

/** `invalid argument <i>: <reason>` (-32602). */
export const invalidArgument = (index: number, reason: string): FirnError =>
  invalidParams(`invalid argument ${index}: ${reason}`)

/** Go's JSON type name of a decoded value, as in `json: cannot unmarshal <kind> into Go value of type T`. */
export function goJsonKind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'boolean') return 'bool'
  return typeof value
}
