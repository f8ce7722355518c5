/** systemIds of the long-lived actors, so `system.get(SystemId.X)` finds them anywhere in the tree. */
export const SystemId = {
  Node: 'node',
  Profiler: 'profiler',
  Network: 'network',
  /** chain lifecycle actors are `chain:<alias or ID>`, e.g. `chain:C` */
  chain: (alias: string) => `chain:${alias}`,
  /** a chain's own profiler (the chain admin API), e.g. `profiler:C` */
  chainProfiler: (alias: string) => `profiler:${alias}`,
  /** one peer session per connection, `peer:<NodeID>` */
  peer: (nodeId: string) => `peer:${nodeId}`,
  /** a chain's benchlist, `benchlist:<alias>` */
  benchlist: (alias: string) => `benchlist:${alias}`,
  /** a chain's bootstrapper while it bootstraps, `bootstrapper:<alias>` */
  bootstrapper: (alias: string) => `bootstrapper:${alias}`,
  /** a chain's consensus engine in normal operation, `engine:<alias>` */
  engine: (alias: string) => `engine:${alias}`,
  /** a lone validator's block producer in normal operation (instead of the engine), `producer:<alias>` */
  producer: (alias: string) => `producer:${alias}`,
} as const
