/**
 * What the node wires into each chain of Firn's EVM (src/chains/evm/chain-vm.ts), whatever its alias: the built-in
 * `evm` factory, whose VMs send their transactions through their chain actor (`chain.submitTxs` under tickets,
 * src/node/tx-admission.ts; `avax.issueTx`'s atomic txs alike), reach their chain's profiler actor and log levels, and read a declared genesis JSON
 * with `evmPresetFromGenesis`; and, for an opened EVM chain, the admission its `chainIo` slot runs and where its
 * chain admin API writes profiles.
 */
import { join } from 'node:path'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { AnyActorRef } from 'xstate'
import type { ChainEmitted, TxsAdmitted } from '../../actors/chains/chain.machine.js'
import { SystemId } from '../../actors/system-ids.js'
import { fromHex } from '../chains/evm/atomic/hex.js'
import { type DecodedTx, idCb58 } from '../chains/evm/atomic/ids.js'
import { EvmChainVm, evmVmFactory } from '../chains/evm/chain-vm.js'
import type { EvmConfig } from '../chains/evm/config.js'
import { evmPresetFromGenesis } from '../chains/evm/rules/genesis-json.js'
import type { ChainVm, VmFactory } from '../chains/vm.js'
import type { LogManager } from '../log/logger.js'
import type { AskStatsSink } from '../runtime/ask.js'
import { admitTickets, submitThroughChain, TxTickets } from './tx-admission.js'

type AdmitTxs = Extract<ChainEmitted, { type: 'chain.admitTxs' }>

export interface EvmHost {
  /** the built-in EVM's factory (registered as `evm`) */
  factory: VmFactory
  /** an opened EVM chain's admission (`chain.admitTxs`), or undefined when `vm` is not Firn's EVM */
  admission(chainId: string, vm: ChainVm): ((e: AdmitTxs) => Promise<TxsAdmitted>) | undefined
  /** an opened EVM chain's admin API: whether it is on, and its profile directory */
  adminApi(vm: ChainVm, alias: string): { profileDir: string } | undefined
}

export interface EvmHostDeps {
  logs: LogManager
  /** the actor system, once it runs */
  system: () => { get(id: string): AnyActorRef | undefined } | undefined
  askStats?: AskStatsSink
  /** `--dev`: the extra dev services (`--dev-speed` takes only the timing) */
  devServices: boolean
  /** `--profile-dir` */
  profileDir: string
}

/**
 * The chain admin API's profile directory: the reference's `<admin-api-dir>_coreth_performance_<alias>`, or
 * `<profile-dir>/<alias>` when admin-api-dir is unset (the reference would write into the working directory).
 */
function chainProfileDir(profileDir: string, config: EvmConfig, alias: string): string {
  if (config.adminApiDir === '') return join(profileDir, alias)
  const expanded = config.adminApiDir.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name) => process.env[name] ?? '')
  return `${expanded}_coreth_performance_${alias}`
}

/** What waits under a ticket: an EVM tx, or an atomic tx (by its ID) for the atomic mempool. */
type Parked = TypedTransaction | { atomic: DecodedTx; hash(): Uint8Array }

export function evmHost(deps: EvmHostDeps): EvmHost {
  const tickets = new Map<string, TxTickets<Parked>>()
  const factory = evmVmFactory((ctx) => {
    const parked = new TxTickets<Parked>()
    tickets.set(ctx.chainId, parked)
    const submit = submitThroughChain(parked, () => deps.system()?.get(SystemId.chain(ctx.alias)), deps.askStats)
    return {
      submitTransaction: submit,
      submitAtomicTx: (d) => submit({ atomic: d, hash: () => fromHex(d.id, 32, 'tx ID') }),
      profiler: () => deps.system()?.get(SystemId.chainProfiler(ctx.alias)),
      ...(deps.askStats === undefined ? {} : { askStats: deps.askStats }),
      setLogLevels: (levels) => deps.logs.setLevels(ctx.alias, levels),
      devServices: deps.devServices,
      presetFromGenesis: evmPresetFromGenesis,
    }
  })
  return {
    factory,
    admission(chainId, vm) {
      const parked = tickets.get(chainId)
      if (!(vm instanceof EvmChainVm) || parked === undefined) return undefined
      return (e) =>
        admitTickets(e, parked, (t) =>
          'atomic' in t ? vm.admitAtomicTx(t.atomic).then(() => idCb58(t.atomic.id)) : vm.admitTransaction(t),
        )
    },
    adminApi(vm, alias) {
      if (!(vm instanceof EvmChainVm) || !vm.config.adminApiEnabled) return undefined
      return { profileDir: chainProfileDir(deps.profileDir, vm.config, alias) }
    },
  }
}
