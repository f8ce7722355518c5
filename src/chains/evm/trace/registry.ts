/**
 * geth's tracer directory, native tracers only: the struct logger (no name), callTracer, prestateTracer,
 * 4byteTracer, noopTracer and muxTracer. tracerConfig is decoded as Go would (json.Unmarshal into the tracer's
 * config struct). Any other name would be JavaScript in geth; Firn does not run JavaScript tracers.
 */

import { bytesToHex } from '@ethereumjs/util'
import { FirnError } from '../../../runtime/errors.js'
import { CallTracer } from './call-tracer.js'
import { decodeGoStruct, GoJsonError } from './go-struct.js'
import { PrestateTracer } from './prestate-tracer.js'
import { StructLogger, type StructLoggerConfig } from './struct-logger.js'
import type { FrameEnd, FrameStart, Step, Tracer, TxEnd, TxStart } from './types.js'

export const NATIVE_TRACERS = ['callTracer', 'prestateTracer', '4byteTracer', 'noopTracer', 'muxTracer'] as const

export class TracerError extends FirnError {}

/** A tracer for `name` (undefined: the struct logger with `structConfig`). */
export function newTracer(name: string | undefined, structConfig: StructLoggerConfig, tracerConfig: unknown): Tracer {
  if (name === undefined) return new StructLogger(structConfig)
  const cfg = tracerConfig ?? null
  try {
    switch (name) {
      case 'callTracer': {
        const c = configOf(cfg, 'native.callTracerConfig', 'callTracerConfig', ['onlyTopCall', 'withLog'])
        return new CallTracer({ onlyTopCall: c.get('onlyTopCall') === true, withLog: c.get('withLog') === true })
      }
      case 'prestateTracer': {
        const c = configOf(cfg, 'native.prestateTracerConfig', 'prestateTracerConfig', ['diffMode'])
        return new PrestateTracer({ diffMode: c.get('diffMode') === true })
      }
      case '4byteTracer':
        return new FourByteTracer()
      case 'noopTracer':
        return { result: () => ({}) }
      case 'muxTracer':
        return muxTracer(cfg, structConfig)
    }
  } catch (err) {
    if (err instanceof GoJsonError) throw new TracerError(err.message)
    throw err
  }
  throw new TracerError(`tracer not found: ${name} (JavaScript tracers are not supported)`)
}

function configOf(cfg: unknown, goType: string, struct: string, bools: string[]): Map<string, unknown> {
  if (cfg === null) return new Map()
  return decodeGoStruct(
    cfg,
    goType,
    struct,
    bools.map((name) => ({ name, kind: 'bool' as const })),
  )
}

/** 4byteTracer: `0x<selector>-<argument bytes>` -> count, for the top call and every CALL-family call. */
class FourByteTracer implements Tracer {
  private readonly ids = new Map<string, number>()

  private store(input: Uint8Array): void {
    const key = `${bytesToHex(input.subarray(0, 4))}-${input.length - 4}`
    this.ids.set(key, (this.ids.get(key) ?? 0) + 1)
  }

  txStart(tx: TxStart): void {
    if (tx.input.length >= 4) this.store(tx.input)
  }

  enter(f: FrameStart): void {
    if (f.input.length < 4 || f.to === undefined) return
    if (f.type !== 'CALL' && f.type !== 'CALLCODE' && f.type !== 'DELEGATECALL' && f.type !== 'STATICCALL') return
    if (isPrecompile(f.to)) return
    this.store(f.input)
  }

  result(): unknown {
    return Object.fromEntries([...this.ids].sort(([a], [b]) => (a < b ? -1 : 1)))
  }
}

/** Cancun's precompiles 0x01..0x0a and P256VERIFY at 0x100. */
function isPrecompile(addr: Uint8Array): boolean {
  for (let i = 0; i < 18; i++) if (addr[i] !== 0) return false
  const n = (addr[18]! << 8) | addr[19]!
  return (n >= 1 && n <= 0x0a) || n === 0x100
}

/** muxTracer: `{name: config}` -> `{name: result}`, every tracer fed the same events. */
function muxTracer(cfg: unknown, structConfig: StructLoggerConfig): Tracer {
  if (cfg !== null && (typeof cfg !== 'object' || Array.isArray(cfg)))
    throw new TracerError(
      `json: cannot unmarshal ${Array.isArray(cfg) ? 'array' : typeof cfg} into Go value of type map[string]json.RawMessage`,
    )
  const entries = Object.entries((cfg ?? {}) as Record<string, unknown>).map(
    ([name, c]) => [name, newTracer(name, structConfig, c)] as const,
  )
  const all = entries.map(([, t]) => t)
  return {
    async txStart(tx: TxStart, state) {
      for (const t of all) await t.txStart?.(tx, state)
    },
    async step(s: Step) {
      for (const t of all) await t.step?.(s)
    },
    stepFault(e: string) {
      for (const t of all) t.stepFault?.(e)
    },
    async enter(f: FrameStart) {
      for (const t of all) await t.enter?.(f)
    },
    exit(e: FrameEnd) {
      for (const t of all) t.exit?.(e)
    },
    end(e: FrameEnd) {
      for (const t of all) t.end?.(e)
    },
    async txEnd(e: TxEnd, state) {
      for (const t of all) await t.txEnd?.(e, state)
    },
    result() {
      return Object.fromEntries(entries.map(([name, t]) => [name, t.result()]).sort(([a], [b]) => (a! < b! ? -1 : 1)))
    },
  }
}
