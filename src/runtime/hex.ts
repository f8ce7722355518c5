/**
 * Bytes as lower-case hex through Node's native encoder: one flat string per call. ethereumjs' and noble's
 * `bytesToHex` build the string one byte at a time (32 concatenations for a hash, flattened again when the
 * string keys a Map), which made the map keys of the transfer path a large share of its garbage
 * (docs/performance.md, "Sixth round").
 */
export const unprefixedHex = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')

/** `0x` + lower-case hex */
export const prefixedHex = (bytes: Uint8Array): string => `0x${unprefixedHex(bytes)}`
