/** Names of the database's sublevels, in one place so no two concerns collide. */
export const Sublevel = {
  /** node metadata: database version, ... */
  node: 'node',
  /** per-chain data: `chains/<chainID>` */
  chain: (chainId: string) => `chains/${chainId}`,
  sharedMemory: 'shared-memory',
  peers: 'peers',
  uptime: 'uptime',
} as const
