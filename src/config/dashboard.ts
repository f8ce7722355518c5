/**
 * `--api-dashboard-enabled` (Firn only): serve the dashboard at `/ext/dashboard`. Unless it is set, the
 * dashboard is on for `--dev` and whenever the HTTP server listens on loopback only (`--http-host` 127.x.y.z,
 * ::1 or localhost: the default), and off when the API is reachable from other machines.
 */
import { isIP } from 'node:net'

/** `--http-host` binds loopback only */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase()
  if (h === 'localhost') return true
  if (isIP(h) === 4) return h.startsWith('127.')
  return h === '::1' || h === '0:0:0:0:0:0:0:1'
}

export function dashboardEnabled(explicit: boolean | undefined, dev: boolean, httpHost: string): boolean {
  return explicit ?? (dev || isLoopbackHost(httpHost))
}
