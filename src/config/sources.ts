/**
 * Collect raw flag values from the command line, the environment and the config file, in the reference's
 * precedence: flags > env vars > config file > defaults. Errors use pflag's texts where it has one.
 */
import { readFileSync } from 'node:fs'
import { FirnError } from '../runtime/errors.js'
import { envVarName, FLAGS, type FlagName, isFlagName } from './flags.js'
import { type FlagValue, parseJsonValue, parseText } from './values.js'

export type Source = 'flag' | 'env' | 'file' | 'default'

export interface RawConfig {
  get<T extends FlagValue>(name: FlagName): T
  /** true when the value was given (flag, env or file), false for the default */
  isSet(name: FlagName): boolean
  source(name: FlagName): Source
}

/** A flag, env var or config file value that cannot be used (-32000 if it ever reaches a JSON-RPC caller). */
export class ConfigError extends FirnError {
  constructor(message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

/** pflag-style command line parsing: `--name=value`, `--name value`, and a bare `--name` for booleans. */
export function parseArgv(argv: readonly string[]): Map<FlagName, FlagValue> {
  const out = new Map<FlagName, FlagValue>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === '--') break
    if (!arg.startsWith('-') || arg === '-') throw new ConfigError(`unexpected argument: ${arg}`)
    const body = arg.replace(/^--?/, '')
    const eq = body.indexOf('=')
    const name = eq === -1 ? body : body.slice(0, eq)
    if (!isFlagName(name)) throw new ConfigError(`unknown flag: --${name}`)
    const spec = FLAGS[name]
    let text: string
    if (eq !== -1) text = body.slice(eq + 1)
    else if (spec.kind === 'bool') text = 'true'
    else {
      const next = argv[i + 1]
      if (next === undefined) throw new ConfigError(`flag needs an argument: --${name}`)
      text = next
      i++
    }
    try {
      out.set(name, parseText(spec.kind, text))
    } catch (err) {
      throw new ConfigError(`invalid argument ${JSON.stringify(text)} for "--${name}" flag: ${(err as Error).message}`)
    }
  }
  return out
}

export function readEnv(env: NodeJS.ProcessEnv): Map<FlagName, FlagValue> {
  const out = new Map<FlagName, FlagValue>()
  for (const name of Object.keys(FLAGS) as FlagName[]) {
    const text = env[envVarName(name)]
    if (text === undefined) continue
    try {
      out.set(name, parseText(FLAGS[name].kind, text))
    } catch (err) {
      throw new ConfigError(`invalid value for ${envVarName(name)}: ${(err as Error).message}`)
    }
  }
  return out
}

const MAX_CONFIG_FILE_BYTES = 1 << 20

export function parseConfigJson(text: string, origin: string): Map<FlagName, FlagValue> {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (err) {
    throw new ConfigError(`couldn't parse config file ${origin}: ${(err as Error).message}`)
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new ConfigError(`couldn't parse config file ${origin}: expected a JSON object keyed by flag names`)
  }
  const out = new Map<FlagName, FlagValue>()
  for (const [key, value] of Object.entries(doc)) {
    if (!isFlagName(key)) throw new ConfigError(`unknown key in config file ${origin}: ${JSON.stringify(key)}`)
    if (key === 'config-file' || key === 'config-file-content') continue
    try {
      out.set(key, parseJsonValue(FLAGS[key].kind, value))
    } catch (err) {
      throw new ConfigError(`invalid value for "${key}" in config file ${origin}: ${(err as Error).message}`)
    }
  }
  return out
}

export function readConfigFile(path: string): Map<FlagName, FlagValue> {
  let text: string
  try {
    const buf = readFileSync(path)
    if (buf.length > MAX_CONFIG_FILE_BYTES) throw new Error(`larger than ${MAX_CONFIG_FILE_BYTES} bytes`)
    text = buf.toString('utf8')
  } catch (err) {
    throw new ConfigError(`couldn't read config file ${path}: ${(err as Error).message}`)
  }
  return parseConfigJson(text, path)
}

/** Merge flags > env > file > defaults into one lookup. */
export function collect(argv: readonly string[], env: NodeJS.ProcessEnv): RawConfig {
  const flags = parseArgv(argv)
  const fromEnv = readEnv(env)
  const layered = (name: FlagName) => flags.get(name) ?? fromEnv.get(name)
  let file = new Map<FlagName, FlagValue>()
  const content = layered('config-file-content') as string | undefined
  const filePath = layered('config-file') as string | undefined
  if (content) {
    const type = (layered('config-file-content-type') as string | undefined) ?? 'json'
    if (type !== 'json') throw new ConfigError(`unsupported config file content type: ${JSON.stringify(type)}`)
    file = parseConfigJson(Buffer.from(content, 'base64').toString('utf8'), '(--config-file-content)')
  } else if (filePath) {
    file = readConfigFile(filePath)
  }
  const sourceOf = (name: FlagName): Source =>
    flags.has(name) ? 'flag' : fromEnv.has(name) ? 'env' : file.has(name) ? 'file' : 'default'
  return {
    get: <T extends FlagValue>(name: FlagName) =>
      (flags.get(name) ?? fromEnv.get(name) ?? file.get(name) ?? FLAGS[name].default) as T,
    isSet: (name) => sourceOf(name) !== 'default',
    source: sourceOf,
  }
}
