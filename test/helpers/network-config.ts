/**
 * The NetworkOptions.config of an in-process test or bench node: 127.0.0.1, a free staking port, no key files,
 * optional bootstrappers.
 */
import type { NetworkOptions } from '../../src/network/network.js'

export interface LoopbackConfig {
  dev?: boolean
  networkId?: number
  host?: string
  bootstrap?: readonly { ip: string; id: string }[]
  sybilProtection?: boolean
  acpSupport?: number[]
  /** `--consensus-app-concurrency`; the default 2 when absent */
  appConcurrency?: number
}

export function loopbackNetworkConfig(o: LoopbackConfig = {}): NetworkOptions['config'] {
  const host = o.host ?? '127.0.0.1'
  return {
    dev: o.dev ?? true,
    networkId: o.networkId ?? 12345,
    publicIp: host,
    staking: {
      host,
      port: 0,
      keyPath: '',
      certPath: '',
      keyExplicit: false,
      certExplicit: false,
      signerKeyPath: '',
      signerExplicit: false,
    },
    trackSubnets: [],
    acpSupport: o.acpSupport ?? [],
    acpObject: [],
    bootstrap: { ips: (o.bootstrap ?? []).map((b) => b.ip), ids: (o.bootstrap ?? []).map((b) => b.id) },
    sybilProtection: { enabled: o.sybilProtection ?? false, disabledWeight: 100 },
    ...(o.appConcurrency === undefined ? {} : { appConcurrency: o.appConcurrency }),
  }
}
