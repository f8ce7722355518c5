/**
 * `/ext/admin` (only with `--api-admin-enabled=true`): aliases, logger levels, VM plugins, profiling, dbGet,
 * getConfig, stacktrace — the reference's methods, params and texts (reference/node-api.md section 4) — plus
 * Firn's `heapSnapshot` (a full V8 heap snapshot to `<profile-dir>/mem.heapsnapshot`, docs/operations.md).
 * Profiling commands are messages to the profiler actor; everything else reads or updates a registry.
 */
import { posix } from 'node:path'
import type { AnyActorRef } from 'xstate'
import type { ChainRegistry } from '../../chains/registry.js'
import { type LogLevel, parseLogLevel } from '../../config/node-config.js'
import type { Database } from '../../db/open.js'
import { idFromString, idToString } from '../../identity/ids.js'
import type { LoggerLevels, LogManager } from '../../log/logger.js'
import type { ActorLine } from '../../node/actor-tree.js'
import { custom, fields, noParams, optional, str } from '../../rpc/params.js'
import { defineMethod, type RpcService } from '../../rpc/service.js'
import { type AskStatsSink, ask } from '../../runtime/ask.js'
import { FirnError } from '../../runtime/errors.js'
import type { Router } from '../http/router.js'
import { dbGet } from './db-get.js'
import { writeStacktrace } from './stacktrace.js'

export interface AdminDeps {
  router: Pick<Router, 'addAliases'>
  chains: ChainRegistry
  logs: LogManager
  profiler: () => AnyActorRef
  /** the node actor (`node.loadVMs`) */
  node: () => AnyActorRef
  db: Database
  /** the parsed node config, as getConfig returns it */
  config: unknown
  actors: () => ActorLine[]
  /** `--profile-dir`: where `stacktrace.txt` goes (the reference writes it into the working directory) */
  profileDir: string
  /** where ask round-trip times go (the lock profile's `asks` section) */
  askStats?: AskStatsSink
}

const MAX_ALIAS_BYTES = 512
/** a plugin scan imports each module with its own 10 s deadline; the command waits this long in all */
const LOAD_VMS_TIMEOUT_MS = 120_000

const checkAliasLength = (alias: string) => {
  if (Buffer.byteLength(alias) > MAX_ALIAS_BYTES) throw new FirnError('alias length is too long')
}

const levelParam = custom<LogLevel>((v) => {
  if (typeof v !== 'string') throw new Error('not a string')
  return parseLogLevel(v)
}, 'INFO')

export function adminService(d: AdminDeps): RpcService {
  const levelsOf = (names: string[]): { loggerLevels: Record<string, LoggerLevels> } => ({
    loggerLevels: Object.fromEntries(names.map((n) => [n, d.logs.levels(n) as LoggerLevels])),
  })
  const loggerNames = (name: string | undefined): string[] => {
    if (name === undefined || name === '') return d.logs.names()
    if (!d.logs.has(name)) throw new FirnError(`logger with name "${name}" not found`)
    return [name]
  }
  const profilerCommand = (type: string) =>
    defineMethod(noParams, () => ask(d.profiler(), { type }, { stats: d.askStats }))

  return {
    name: 'admin',
    methods: {
      Alias: defineMethod(fields({ endpoint: str, alias: str }), ({ endpoint, alias }) => {
        checkAliasLength(alias)
        d.router.addAliases(endpoint, alias)
        return {}
      }),
      AliasChain: defineMethod(fields({ chain: str, alias: str }), ({ chain, alias }) => {
        checkAliasLength(alias)
        const chainId = d.chains.aliaser.lookup(chain)
        d.chains.aliaser.alias(chainId, alias)
        d.router.addAliases(posix.join('bc', chainId), posix.join('bc', alias))
        return {}
      }),
      GetChainAliases: defineMethod(fields({ chain: str }), ({ chain }) => {
        const id = idToString(parseId(chain))
        return { aliases: d.chains.aliaser.aliases(id) ?? null }
      }),
      GetLoggerLevel: defineMethod(fields({ loggerName: optional(str) }), ({ loggerName }) =>
        levelsOf(loggerNames(loggerName)),
      ),
      SetLoggerLevel: defineMethod(
        fields({ loggerName: optional(str), logLevel: optional(levelParam), displayLevel: optional(levelParam) }),
        ({ loggerName, logLevel, displayLevel }) => {
          if (logLevel === undefined && displayLevel === undefined) {
            throw new FirnError('need to specify either displayLevel or logLevel')
          }
          const names = loggerNames(loggerName)
          for (const n of names) d.logs.setLevels(n, { logLevel, displayLevel })
          return levelsOf(names)
        },
      ),
      // a command to the node actor, which loads one plugin scan at a time
      LoadVMs: defineMethod(noParams, () =>
        ask(d.node(), { type: 'node.loadVMs' }, { stats: d.askStats, timeoutMs: LOAD_VMS_TIMEOUT_MS }),
      ),
      StartCPUProfiler: profilerCommand('profiler.start'),
      StopCPUProfiler: profilerCommand('profiler.stop'),
      MemoryProfile: profilerCommand('profiler.memory'),
      LockProfile: profilerCommand('profiler.lock'),
      // Firn's: the full snapshot stops the event loop while V8 walks the heap, so it is never memoryProfile
      HeapSnapshot: profilerCommand('profiler.heapSnapshot'),
      Stacktrace: defineMethod(noParams, async () => {
        await writeStacktrace(d.profileDir, d.actors())
        return {}
      }),
      GetConfig: defineMethod(noParams, () => d.config),
      DbGet: defineMethod(fields({ key: str }), ({ key }) => dbGet(d.db, key)),
    },
  }
}

/** getChainAliases takes a CB58 ID only; its errors are the CB58 texts. */
function parseId(s: string): Uint8Array {
  try {
    return idFromString(s)
  } catch (err) {
    throw new FirnError((err as Error).message)
  }
}
