/**
 * The C chain's admin API (`/ext/bc/C/admin`, reference: coreth's plugin/evm/admin.go), served when the chain
 * config sets `admin-api-enabled`. Methods: startCPUProfiler, stopCPUProfiler, memoryProfile, lockProfile (the
 * chain's own profiler actor, `profiler:<alias>`, same lifecycle and errors as the node's), setLogLevel({level})
 * and getVMConfig. Params are an object or an array of one object (or none); the endpoint is created with
 * `underscoreNames` so `admin_startCPUProfiler` answers too.
 */
import type { AnyActorRef } from 'xstate'
import type { LogLevel } from '../../../log/levels.js'
import { fields, noParams, str } from '../../../rpc/params.js'
import { defineMethod, type RpcService } from '../../../rpc/service.js'
import { type AskStatsSink, ask } from '../../../runtime/ask.js'
import { FirnError } from '../../../runtime/errors.js'

export interface ChainAdminDeps {
  /** the chain's profiler actor (`system.get('profiler:C')`) */
  profiler: () => AnyActorRef | undefined
  /** sets the chain logger's levels (file and display) */
  setLogLevel: (level: LogLevel) => void
  /** the chain config with the reference's key names, as `getVMConfig` returns it */
  vmConfig: () => Record<string, unknown>
  askStats?: AskStatsSink
}

/**
 * The EVM logger's level names (geth's `LvlFromString`, as coreth parses them) and the Firn level each maps to.
 * `crit` has no Firn twin and maps to FATAL.
 */
const EVM_LEVELS: ReadonlyMap<string, LogLevel> = new Map([
  ['trace', 'TRACE'],
  ['trce', 'TRACE'],
  ['debug', 'DEBUG'],
  ['dbug', 'DEBUG'],
  ['info', 'INFO'],
  ['warn', 'WARN'],
  ['error', 'ERROR'],
  ['eror', 'ERROR'],
  ['crit', 'FATAL'],
])

export function parseEvmLogLevel(level: string): LogLevel {
  const mapped = EVM_LEVELS.get(level.toLowerCase())
  // the reference wraps the parser's error with "%w " (a trailing space included)
  if (mapped === undefined) throw new FirnError(`failed to parse log level: unknown level: ${level} `)
  return mapped
}

export function chainAdminService(d: ChainAdminDeps): RpcService {
  const profilerCommand = (type: string) =>
    defineMethod(noParams, async () => {
      const ref = d.profiler()
      if (ref === undefined) throw new FirnError('chain profiler is not running')
      await ask(ref, { type }, d.askStats === undefined ? {} : { stats: d.askStats })
      return {}
    })
  return {
    name: 'admin',
    methods: {
      StartCPUProfiler: profilerCommand('profiler.start'),
      StopCPUProfiler: profilerCommand('profiler.stop'),
      MemoryProfile: profilerCommand('profiler.memory'),
      LockProfile: profilerCommand('profiler.lock'),
      SetLogLevel: defineMethod(fields({ level: str }), ({ level }) => {
        d.setLogLevel(parseEvmLogLevel(level))
        return {}
      }),
      GetVMConfig: defineMethod(noParams, () => ({ config: d.vmConfig() })),
    },
  }
}
