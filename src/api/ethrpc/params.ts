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
