/**
 * geth's abi.UnpackRevert: the reason in revert data, `Error(string)` or `Panic(uint256)` (with Solidity's panic
 * texts); undefined when the data is neither or malformed.
 */

const PANIC_REASONS: Record<string, string> = {
  '0': 'generic panic',
  '1': 'assert(false)',
  '17': 'arithmetic underflow or overflow',
  '18': 'division or modulo by zero',
  '33': 'enum overflow',
  '34': 'invalid encoded storage byte array accessed',
  '49': 'out-of-bounds array access; popping on an empty array',
  '50': 'out-of-bounds access of an array or bytesN',
  '65': 'out of memory',
  '81': 'uninitialized function',
}

const selector = (data: Uint8Array): string => Buffer.from(data.subarray(0, 4)).toString('hex')
const wordAt = (data: Uint8Array, at: number): bigint | undefined =>
  at + 32 <= data.length ? BigInt(`0x${Buffer.from(data.subarray(at, at + 32)).toString('hex')}`) : undefined

export function unpackRevert(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined
  const body = data.subarray(4)
  switch (selector(data)) {
    case '08c379a0': {
      const offset = wordAt(body, 0)
      if (offset === undefined || offset + 32n > BigInt(body.length)) return undefined
      const length = wordAt(body, Number(offset))
      const start = Number(offset) + 32
      if (length === undefined || BigInt(start) + length > BigInt(body.length)) return undefined
      return new TextDecoder().decode(body.subarray(start, start + Number(length)))
    }
    case '4e487b71': {
      const code = wordAt(body, 0)
      if (code === undefined) return undefined
      return PANIC_REASONS[code.toString()] ?? `unknown panic code: 0x${code.toString(16)}`
    }
    default:
      return undefined
  }
}
