/** Log levels in the reference's order; `OFF` silences a sink. */
import { LOG_LEVELS, type LogLevel } from '../config/node-config.js'

export { LOG_LEVELS, type LogLevel }

export const levelRank = (l: LogLevel): number => LOG_LEVELS.indexOf(l)

/** true when a record at `record` passes a sink set to `threshold` */
export const passes = (record: LogLevel, threshold: LogLevel): boolean =>
  threshold !== 'OFF' && levelRank(record) >= levelRank(threshold)
