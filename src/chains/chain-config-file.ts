/**
 * A chain's config file, `<chain-config-dir>/<chain ID or alias>/config.json`, looked up as the reference does
 * (chains/manager.go getChainConfig over the directories config/config.go reads): the directory named by the chain's
 * ID first, then by each alias in order (primary first). The first directory that exists decides: its config.json,
 * or '' when it has none. '' when no directory exists. (The reference reads `config.*` with any extension; Firn reads
 * config.json.)
 */
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfigError } from '../config/sources.js'

/** Largest chain config file Firn reads. */
export const MAX_CHAIN_CONFIG_BYTES = 1024 * 1024

const isMissing = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** A name that can only be one directory inside the config dir. */
const isPlainName = (name: string): boolean =>
  name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\\') && !name.includes('\0')

/** The text of the chain's config file, '' when it has none. Throws ConfigError naming the path it cannot read. */
export async function readChainConfig(
  chainConfigDir: string,
  chainId: string,
  aliases: readonly string[],
): Promise<string> {
  for (const name of new Set([chainId, ...aliases])) {
    if (!isPlainName(name)) continue
    const dir = join(chainConfigDir, name)
    try {
      if (!(await stat(dir)).isDirectory()) continue
    } catch (err) {
      if (isMissing(err)) continue
      throw new ConfigError(`couldn't read chain config directory ${dir}: ${(err as Error).message}`)
    }
    const path = join(dir, 'config.json')
    let bytes: Buffer
    try {
      bytes = await readFile(path)
    } catch (err) {
      if (isMissing(err)) return ''
      throw new ConfigError(`couldn't read chain config ${path}: ${(err as Error).message}`)
    }
    if (bytes.length > MAX_CHAIN_CONFIG_BYTES) {
      throw new ConfigError(`couldn't read chain config ${path}: larger than ${MAX_CHAIN_CONFIG_BYTES} bytes`)
    }
    return bytes.toString('utf8')
  }
  return ''
}
