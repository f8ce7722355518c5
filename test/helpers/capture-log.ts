/**
 * A Logger for tests that keeps every line (`LEVEL message {fields}`) instead of writing it, so a test can assert on
 * what the code logged.
 */
import type { Logger } from '../../src/log/logger.js'

export interface CapturedLog {
  log: Logger
  lines: string[]
}

export function captureLog(name = 'test'): CapturedLog {
  const lines: string[] = []
  const at =
    (level: string) =>
    (msg: string, fields?: Record<string, unknown>): void => {
      lines.push(
        `${level} ${msg}${fields ? ` ${JSON.stringify(fields, (_, v) => (typeof v === 'bigint' ? String(v) : v))}` : ''}`,
      )
    }
  const log = {
    name,
    verbo: at('VERBO'),
    debug: at('DEBUG'),
    trace: at('TRACE'),
    info: at('INFO'),
    warn: at('WARN'),
    error: at('ERROR'),
    fatal: at('FATAL'),
  } as unknown as Logger
  return { log, lines }
}
