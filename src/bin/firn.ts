#!/usr/bin/env node
/**
 * `firn [flags]`: parse flags -> createNode -> serve until SIGINT/SIGTERM -> graceful shutdown.
 * Exit codes: 0 after a clean shutdown, 1 for a bad configuration or a failed start.
 */
import '../runtime/polyfill.js'
import { buildNodeConfig, type NodeConfig } from '../config/node-config.js'
import { collect } from '../config/sources.js'
import { versionLine, versions } from '../config/version.js'
import { createNode, type FirnNode } from '../node/create-node.js'

async function main(argv: string[]): Promise<number> {
  let raw: ReturnType<typeof collect>
  try {
    raw = collect(argv, process.env)
  } catch (err) {
    process.stdout.write(`couldn't configure flags: ${(err as Error).message}\n`)
    return 1
  }
  if (raw.get<boolean>('version') && raw.get<boolean>('version-json')) {
    process.stdout.write("can't print both JSON and human readable versions\n")
    return 1
  }
  if (raw.get<boolean>('version-json')) {
    process.stdout.write(`${JSON.stringify(versions(), null, 2)}\n`)
    return 0
  }
  if (raw.get<boolean>('version')) {
    process.stdout.write(`${versionLine(versions())}\n`)
    return 0
  }
  let config: NodeConfig
  try {
    config = buildNodeConfig(raw, process.env)
  } catch (err) {
    process.stdout.write(`couldn't load node config: ${(err as Error).message}\n`)
    return 1
  }
  let node: FirnNode
  try {
    node = await createNode(config)
  } catch (err) {
    process.stdout.write(`couldn't start node: ${(err as Error).message}\n`)
    return 1
  }
  return waitForShutdown(node)
}

function waitForShutdown(node: FirnNode): Promise<number> {
  return new Promise((resolve) => {
    let signals = 0
    const onSignal = (signal: NodeJS.Signals) => {
      signals++
      if (signals > 1) {
        process.stdout.write(`received ${signal} again, exiting now\n`)
        process.exit(1)
      }
      node.logs.get('main').info('received signal, shutting down', { signal })
      node.close().then(
        () => resolve(0),
        (err) => {
          process.stdout.write(`shutdown failed: ${(err as Error).message}\n`)
          resolve(1)
        },
      )
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  })
}

main(process.argv.slice(2)).then((code) => process.exit(code))
