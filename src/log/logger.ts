/**
 * Named loggers (main, http, network, C, ...) as the reference has them: each writes `<log-dir>/<name>.log`
 * (JSON lines) at its `logLevel` and prints to stdout at its `displayLevel`. `LogManager` owns them all and
 * serves admin.getLoggerLevel / setLoggerLevel.
 */
import { type LogLevel, passes } from './levels.js'
import { RotatingFile } from './rotating-file.js'

export type LogFields = Record<string, unknown>

export interface Logger {
  readonly name: string
  verbo(msg: string, fields?: LogFields): void
  debug(msg: string, fields?: LogFields): void
  trace(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  fatal(msg: string, fields?: LogFields): void
}

export interface LoggerLevels {
  logLevel: LogLevel
  displayLevel: LogLevel
}

export interface LogManagerOptions {
  dir: string
  level: LogLevel
  displayLevel: LogLevel
  /** where displayed lines go (default process.stdout) */
  display?: (line: string) => void
  maxFileBytes?: number
  maxFiles?: number
}

interface Entry {
  logger: Logger
  levels: LoggerLevels
  file: RotatingFile
}

export class LogManager {
  private readonly entries = new Map<string, Entry>()
  private readonly display: (line: string) => void

  constructor(private readonly opts: LogManagerOptions) {
    this.display = opts.display ?? ((line) => process.stdout.write(line))
  }

  /** The logger called `name`, created on first use with the node's default levels. */
  get(name: string): Logger {
    const existing = this.entries.get(name)
    if (existing) return existing.logger
    const entry: Entry = {
      levels: { logLevel: this.opts.level, displayLevel: this.opts.displayLevel },
      file: new RotatingFile({
        dir: this.opts.dir,
        name,
        maxBytes: this.opts.maxFileBytes ?? 8 * 1024 * 1024,
        maxFiles: this.opts.maxFiles ?? 7,
      }),
      logger: undefined as unknown as Logger,
    }
    const log = (level: LogLevel) => (msg: string, fields?: LogFields) => this.write(entry, name, level, msg, fields)
    entry.logger = {
      name,
      verbo: log('VERBO'),
      debug: log('DEBUG'),
      trace: log('TRACE'),
      info: log('INFO'),
      warn: log('WARN'),
      error: log('ERROR'),
      fatal: log('FATAL'),
    }
    this.entries.set(name, entry)
    return entry.logger
  }

  names(): string[] {
    return [...this.entries.keys()].sort()
  }

  has(name: string): boolean {
    return this.entries.has(name)
  }

  levels(name: string): LoggerLevels | undefined {
    const e = this.entries.get(name)
    return e ? { ...e.levels } : undefined
  }

  setLevels(name: string, levels: Partial<LoggerLevels>): void {
    const e = this.entries.get(name)
    if (!e) return
    if (levels.logLevel) e.levels.logLevel = levels.logLevel
    if (levels.displayLevel) e.levels.displayLevel = levels.displayLevel
  }

  async close(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.file.close()))
  }

  private write(entry: Entry, name: string, level: LogLevel, msg: string, fields?: LogFields): void {
    const toFile = passes(level, entry.levels.logLevel)
    const toDisplay = passes(level, entry.levels.displayLevel)
    if (!toFile && !toDisplay) return
    const now = new Date()
    if (toFile) {
      entry.file.write(
        `${JSON.stringify({ timestamp: now.toISOString(), level, logger: name, msg, ...safe(fields) })}\n`,
      )
    }
    if (toDisplay) this.display(`${displayLine(now, level, name, msg, fields)}\n`)
  }
}

function safe(fields: LogFields | undefined): LogFields {
  if (!fields) return {}
  const out: LogFields = {}
  for (const [k, v] of Object.entries(fields)) {
    out[k] = typeof v === 'bigint' ? v.toString() : v instanceof Error ? v.message : v
  }
  return out
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** `[11-22|21:43:10.123] INFO <main> message key=value` */
function displayLine(t: Date, level: LogLevel, name: string, msg: string, fields?: LogFields): string {
  const ts = `${pad(t.getMonth() + 1)}-${pad(t.getDate())}|${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}.${pad(t.getMilliseconds(), 3)}`
  const extra = Object.entries(safe(fields))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v)}`)
    .join(' ')
  return `[${ts}] ${level.padEnd(5)} <${name}> ${msg}${extra ? ` ${extra}` : ''}`
}
