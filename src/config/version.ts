/** Firn's version facts, reported by `--version`, `--version-json` and `info.getNodeVersion`. */
export const CLIENT_NAME = 'firn'
export const VERSION = { major: 0, minor: 1, patch: 0 } as const
export const SEMVER = `${VERSION.major}.${VERSION.minor}.${VERSION.patch}`
/** `firn/<semver>`, the form `<client>/<maj>.<min>.<patch>` the reference uses. */
export const VERSION_STRING = `${CLIENT_NAME}/${SEMVER}`
/** The database layout version; bump when the on-disk format changes. */
export const DATABASE_VERSION = 'v1.0.0'
/** The VM-plugin protocol version (a string on the wire, as the reference). */
export const RPC_PROTOCOL_VERSION = '1'
/** Set at build time through FIRN_GIT_COMMIT (the Makefile passes `git rev-parse HEAD`), else empty. */
export const gitCommit = (env: NodeJS.ProcessEnv = process.env): string => env.FIRN_GIT_COMMIT ?? ''

export interface Versions {
  application: string
  database: string
  rpcchainvm: number
  commit: string
  node: string
}

export const versions = (env: NodeJS.ProcessEnv = process.env): Versions => ({
  application: VERSION_STRING,
  database: DATABASE_VERSION,
  rpcchainvm: Number(RPC_PROTOCOL_VERSION),
  commit: gitCommit(env),
  node: process.version,
})

/** The human-readable line of `--version`, shaped like the reference's. */
export const versionLine = (v: Versions): string =>
  `${v.application} [database=${v.database}, rpcchainvm=${v.rpcchainvm}, commit=${v.commit}, node=${v.node}]`
