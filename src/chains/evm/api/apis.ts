/**
 * The C chain's JSON-RPC method table, assembled from the services the `eth-apis` config enables (reference
 * cchain.md 3.1: each name adds a group of methods; legacy names are mapped by the config parser). An unknown
 * name fails start-up with the reference's `API service <name> not found`. Firn's `--dev` default adds the
 * tx pool, personal, account and tracer services to the reference's list (docs/api.md).
 */

import type { EthMethod, SubscriptionTable } from '../../../rpc/eth-types.js'
import { GasPriceOracle } from '../gasprice/oracle.js'
import type { Keystore } from '../keystore/keystore.js'
import { accountMethods } from './accounts.js'
import type { EthBackend, SubmitTransaction } from './backend.js'
import { debugMethods } from './debug.js'
import { execMethods } from './exec.js'
import { feeMethods } from './fees.js'
import { FilterSystem, filterMethods } from './filters.js'
import { netWeb3Methods } from './net-web3.js'
import { readMethods } from './read.js'
import { ethSubscriptions } from './subscriptions.js'
import { txpoolMethods } from './txpool.js'

/** The services Firn serves, by their reference names. */
export const SERVICES = [
  'eth',
  'eth-filter',
  'net',
  'web3',
  'internal-eth',
  'internal-blockchain',
  'internal-transaction',
  'internal-account',
  'internal-tx-pool',
  'internal-personal',
  'debug-tracer',
] as const
export type ServiceName = (typeof SERVICES)[number]

/** The reference accepts these names; Firn has nothing to serve for them yet (docs/api.md lists them). */
const ACCEPTED_WITHOUT_METHODS = new Set(['internal-debug', 'debug', 'debug-file-tracer', 'debug-handler', 'admin'])

/** The extra services `--dev` enables by default. */
export const DEV_EXTRA_SERVICES: readonly ServiceName[] = [
  'internal-account',
  'internal-tx-pool',
  'internal-personal',
  'debug-tracer',
]

const FILTER_METHODS = new Set([
  'eth_getLogs',
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
])
const INTERNAL_ETH = new Set([
  'eth_gasPrice',
  'eth_baseFee',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_suggestPriceOptions',
  'eth_syncing',
])
const INTERNAL_TRANSACTION = new Set([
  'eth_getTransactionByHash',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getRawTransactionByHash',
  'eth_getRawTransactionByBlockNumberAndIndex',
  'eth_getRawTransactionByBlockHashAndIndex',
  'eth_getTransactionReceipt',
  'eth_getTransactionCount',
  'eth_sendRawTransaction',
  'eth_sendTransaction',
  'eth_sign',
  'eth_signTransaction',
  'eth_fillTransaction',
  'eth_pendingTransactions',
  'eth_resend',
])

/** The service a method belongs to (reference cchain.md 3.1). */
export function serviceOf(method: string): ServiceName {
  if (method.startsWith('debug_')) return 'debug-tracer'
  if (method.startsWith('personal_')) return 'internal-personal'
  if (method.startsWith('txpool_')) return 'internal-tx-pool'
  if (method.startsWith('net_')) return 'net'
  if (method.startsWith('web3_')) return 'web3'
  if (method === 'eth_accounts') return 'internal-account'
  if (method === 'eth_coinbase' || method === 'eth_etherbase') return 'eth'
  if (FILTER_METHODS.has(method)) return 'eth-filter'
  if (INTERNAL_ETH.has(method)) return 'internal-eth'
  if (INTERNAL_TRANSACTION.has(method)) return 'internal-transaction'
  return 'internal-blockchain'
}

export interface EthApi {
  methods: Map<string, EthMethod>
  subscriptions: SubscriptionTable
  close(): void
}

/** Throws `API service <name> not found` for a name the reference does not know. */
export function checkServiceNames(names: Iterable<string>): Set<ServiceName> {
  const enabled = new Set<ServiceName>()
  for (const name of names) {
    if ((SERVICES as readonly string[]).includes(name)) enabled.add(name as ServiceName)
    else if (!ACCEPTED_WITHOUT_METHODS.has(name)) throw new Error(`API service ${name} not found`)
  }
  return enabled
}

/** `submitTransaction`: the tx admission behind eth_sendRawTransaction and the keystore's sends (the backend's). */
export function createEthApi(
  backend: EthBackend,
  keystore: Keystore,
  services: Set<ServiceName>,
  submitTransaction: SubmitTransaction = (tx) => backend.submitTransaction(tx),
): EthApi {
  const filters = new FilterSystem(backend, {
    maxFilters: backend.config.maxFilters,
    maxFiltersPerClient: backend.config.maxFiltersPerIp,
  })
  const oracle = new GasPriceOracle(backend)
  const suggestTip = () => oracle.suggestTip()
  const accounts = accountMethods(backend, keystore, suggestTip, submitTransaction)
  const all: [string, EthMethod][] = [
    ...readMethods(backend),
    ...execMethods(backend, { suggestTip, submitTransaction }),
    ...netWeb3Methods(backend),
    ...txpoolMethods(backend),
    ...filterMethods(backend, filters),
    ...feeMethods(backend, oracle),
    ...debugMethods(backend),
    ...accounts.personal,
    ...accounts.account,
    ...accounts.transaction,
  ]
  const methods = new Map<string, EthMethod>()
  for (const [name, fn] of all) if (services.has(serviceOf(name))) methods.set(name, fn)
  return {
    methods,
    subscriptions: services.has('eth-filter') ? ethSubscriptions(backend) : {},
    close: () => filters.close(),
  }
}
