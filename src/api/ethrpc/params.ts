/** A call's raw `params` as geth's `parsePositionalArguments` reads them, before any method sees them. */
import { invalidParams } from '../../rpc/eth-args.js'
import { ErrorText } from './errors.js'

/** `params` -> the argument list: absent or null is [], anything but an array is `non-array args`. */
export function positionalParams(raw: string | undefined): unknown[] {
  if (raw === undefined) return []
  const first = raw.charCodeAt(0)
  if (first === 0x6e) return [] // null
  if (first !== 0x5b) throw invalidParams(ErrorText.nonArrayArgs)
  return JSON.parse(raw) as unknown[]
}

/** What jayson carries as `params`: the argument list when `params` is a JSON array, else undefined. */
export const arrayParams = (raw: string | undefined): unknown[] | undefined =>
  raw === undefined || raw.charCodeAt(0) !== 0x5b ? undefined : raw === '[]' ? [] : (JSON.parse(raw) as unknown[])

/** A method's arguments: the array jayson carried, or what geth makes of other `params` ([] or `non-array args`). */
export const argsOf = (args: unknown[] | undefined, raw: string | undefined): unknown[] => args ?? positionalParams(raw)
