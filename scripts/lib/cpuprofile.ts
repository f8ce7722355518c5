/**
 * A V8 `.cpuprofile` (what admin.startCPUProfiler writes) boiled down to what docs/performance.md quotes: the
 * busy time (samples not idle), the functions with the most self time, and self time by package (an npm package,
 * `src/<dir>`, `node:` internals, or V8's own entries such as the garbage collector), each as a share of busy time.
 */

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

export interface ProfileSummary {
  busyMs: number
  topSelf: { fn: string; pct: number }[]
  byPackage: { pkg: string; pct: number }[]
}

/** `@ethereumjs/mpt`, `classic-level`, `src/chains`, `node:http`, `(garbage collector)` ... */
export function packageOf(url: string, fn: string): string {
  if (url === '') return fn.startsWith('(') ? fn : '(native)'
  const nm = url.lastIndexOf('node_modules/')
  if (nm !== -1) {
    const parts = url.slice(nm + 'node_modules/'.length).split('/')
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? url)
  }
  const src = url.match(/\/(src|actors|protocols)\/([^/]+)/)
  if (src) return `${src[1]}/${src[2]}`
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/').replace('node:internal', 'node')
  return url
}

const shortUrl = (url: string): string => url.replace(/^.*\/(node_modules|src|actors|protocols)\//, '$1/')

export function summarizeProfile(profile: CpuProfile, top = 20): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<string, number>()
  const pkgs = new Map<string, number>()
  let busy = 0
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)
    const us = profile.timeDeltas[i] ?? 0
    if (node === undefined || node.callFrame.functionName === '(idle)') return
    busy += us
    const { functionName, url, lineNumber } = node.callFrame
    const fn = `${functionName || '(anonymous)'} ${shortUrl(url)}${url ? `:${lineNumber + 1}` : ''}`.trim()
    self.set(fn, (self.get(fn) ?? 0) + us)
    const pkg = packageOf(url, functionName)
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us)
  })
  const share = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => [k, Math.round((1000 * us) / Math.max(1, busy)) / 10] as const)
  return {
    busyMs: Math.round(busy / 1000),
    topSelf: share(self).map(([fn, pct]) => ({ fn, pct })),
    byPackage: share(pkgs).map(([pkg, pct]) => ({ pkg, pct })),
  }
}
