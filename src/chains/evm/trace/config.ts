/**
 * geth's TraceConfig / TraceCallConfig as the debug_trace* methods take them (Go json: case-insensitive keys,
 * Go's type errors). The struct logger's options are embedded at the top level; tracerConfig is kept raw for
 * the named tracer to decode; timeout stays a Go duration string until a trace runs.
 */
import { decodeGoStruct, type GoField } from './go-struct.js'
import { defaultStructLoggerConfig, type StructLoggerConfig } from './struct-logger.js'

export interface TraceOptions {
  tracer?: string
  structLogger: StructLoggerConfig
  tracerConfig?: unknown
  /** Go duration, default 5s */
  timeout?: string
  /** blocks re-executed to rebuild pruned state, default 128 */
  reexec: bigint
}

export interface TraceCallOptions extends TraceOptions {
  txIndex?: bigint
  stateOverrides?: unknown
  blockOverrides?: unknown
}

export const DEFAULT_REEXEC = 128n

const TRACE_FIELDS: GoField[] = [
  { name: 'EnableMemory', kind: 'bool' },
  { name: 'DisableStack', kind: 'bool' },
  { name: 'DisableStorage', kind: 'bool' },
  { name: 'EnableReturnData', kind: 'bool' },
  { name: 'Debug', kind: 'bool' },
  { name: 'Limit', kind: 'int' },
  { name: 'overrides', kind: 'raw' },
  { name: 'Tracer', kind: 'string' },
  { name: 'Timeout', kind: 'string' },
  { name: 'Reexec', kind: 'uint64' },
  { name: 'TracerConfig', kind: 'raw' },
]

const CALL_FIELDS: GoField[] = [
  ...TRACE_FIELDS,
  { name: 'StateOverrides', kind: 'raw' },
  { name: 'BlockOverrides', kind: 'raw' },
  { name: 'TxIndex', kind: 'hexUint' },
]

function options(f: Map<string, unknown>): TraceOptions {
  const limit = (f.get('Limit') as bigint | undefined) ?? 0n
  const out: TraceOptions = {
    structLogger: {
      ...defaultStructLoggerConfig(),
      enableMemory: f.get('EnableMemory') === true,
      disableStack: f.get('DisableStack') === true,
      disableStorage: f.get('DisableStorage') === true,
      enableReturnData: f.get('EnableReturnData') === true,
      limit: Number(limit),
    },
    reexec: (f.get('Reexec') as bigint | undefined) ?? DEFAULT_REEXEC,
  }
  const tracer = f.get('Tracer') as string | undefined
  if (tracer !== undefined) out.tracer = tracer
  const timeout = f.get('Timeout') as string | undefined
  if (timeout !== undefined) out.timeout = timeout
  if (f.has('TracerConfig')) out.tracerConfig = f.get('TracerConfig')
  return out
}

/** `*TraceConfig`: null or absent is the default; throws GoJsonError. */
export function parseTraceConfig(v: unknown): TraceOptions {
  if (v === undefined || v === null) return options(new Map())
  return options(decodeGoStruct(v, 'tracers.TraceConfig', 'TraceConfig', TRACE_FIELDS))
}

/** `*TraceCallConfig`; throws GoJsonError. */
export function parseTraceCallConfig(v: unknown): TraceCallOptions {
  if (v === undefined || v === null) return options(new Map())
  const f = decodeGoStruct(v, 'tracers.TraceCallConfig', 'TraceCallConfig', CALL_FIELDS)
  const out: TraceCallOptions = options(f)
  const txIndex = f.get('TxIndex') as bigint | undefined
  if (txIndex !== undefined) out.txIndex = txIndex
  if (f.has('StateOverrides')) out.stateOverrides = f.get('StateOverrides')
  if (f.has('BlockOverrides')) out.blockOverrides = f.get('BlockOverrides')
  return out
}
