/**
 * The reference's network genesis fields (genesis/unparsed_config.go: UnparsedConfig and what its Parse checks),
 * read into typed values with every field's shape checked. The rules across fields (supply, stake durations,
 * staked funds ...) are network-rules.ts.
 */
import { bech32 } from '@scure/base'
import { nodeIdFromString } from '../../identity/ids.js'
import type { JsonNode } from '../evm/config/go-json.js'
import { arrayField, fieldFail, objectFields, stringField, uintField } from './json-node.js'

export const NETWORK_GENESIS_KEYS = [
  'networkID',
  'allocations',
  'startTime',
  'initialStakeDuration',
  'initialStakeDurationOffset',
  'initialStakedFunds',
  'initialStakers',
  'cChainGenesis',
  'message',
] as const

/** An address as the reference writes it (`X-local1...`): chain alias, `-`, bech32; `bytes` is the 20-byte ID. */
export interface AvaxAddress {
  text: string
  bytes: Uint8Array
}

export interface GenesisAllocation {
  ethAddr: string
  avaxAddr: AvaxAddress
  initialAmount: bigint
  unlockSchedule: { amount: bigint; locktime: bigint }[]
}

export interface GenesisStaker {
  nodeId: string
  rewardAddress: AvaxAddress
  delegationFee: number
  signer?: { publicKey: string; proofOfPossession: string }
}

export interface NetworkGenesisConfig {
  networkId: number
  allocations: GenesisAllocation[]
  startTime: bigint
  initialStakeDuration: bigint
  initialStakeDurationOffset: bigint
  initialStakedFunds: AvaxAddress[]
  initialStakers: GenesisStaker[]
  /** the C chain's genesis: a string holding the C-chain genesis JSON */
  cChainGenesis: string
  message: string
}

/** address.Parse: `<chain>-<bech32>` whose payload is 20 bytes. */
export function avaxAddress(node: JsonNode | undefined, path: string): AvaxAddress {
  const text = stringField(node, path)
  const sep = text.indexOf('-')
  if (sep === -1) fieldFail(path, `no separator found in address ${JSON.stringify(text)}`)
  let bytes: Uint8Array
  try {
    bytes = bech32.fromWords(bech32.decode(text.slice(sep + 1), false).words)
  } catch (err) {
    return fieldFail(path, `invalid bech32 address ${JSON.stringify(text)}: ${(err as Error).message}`)
  }
  if (bytes.length !== 20) fieldFail(path, `expected 20 bytes but got ${bytes.length} in address ${text}`)
  return { text, bytes }
}

function hexOf(node: JsonNode | undefined, path: string, size: number): string {
  const text = stringField(node, path)
  if (!/^0x[0-9a-fA-F]*$/.test(text) || text.length !== 2 + 2 * size) {
    fieldFail(path, `expected "0x" and ${size} bytes of hex, got ${JSON.stringify(text.slice(0, 120))}`)
  }
  return text.toLowerCase()
}

function allocation(node: JsonNode, path: string): GenesisAllocation {
  const f = objectFields(node, path, ['ethAddr', 'avaxAddr', 'initialAmount', 'unlockSchedule'])
  const unlockSchedule = arrayField(f.get('unlockSchedule'), `${path}.unlockSchedule`).map((item, i) => {
    const where = `${path}.unlockSchedule[${i}]`
    const u = objectFields(item, where, ['amount', 'locktime'])
    return {
      amount: uintField(u.get('amount'), `${where}.amount`, 64),
      locktime: uintField(u.get('locktime'), `${where}.locktime`, 64),
    }
  })
  return {
    ethAddr: hexOf(f.get('ethAddr'), `${path}.ethAddr`, 20),
    avaxAddr: avaxAddress(f.get('avaxAddr'), `${path}.avaxAddr`),
    initialAmount: uintField(f.get('initialAmount'), `${path}.initialAmount`, 64),
    unlockSchedule,
  }
}

function staker(node: JsonNode, path: string): GenesisStaker {
  const f = objectFields(node, path, ['nodeID', 'rewardAddress', 'delegationFee', 'signer'])
  const nodeIdText = stringField(f.get('nodeID'), `${path}.nodeID`)
  try {
    nodeIdFromString(nodeIdText)
  } catch (err) {
    fieldFail(`${path}.nodeID`, (err as Error).message)
  }
  const out: GenesisStaker = {
    nodeId: nodeIdText,
    rewardAddress: avaxAddress(f.get('rewardAddress'), `${path}.rewardAddress`),
    delegationFee: Number(uintField(f.get('delegationFee'), `${path}.delegationFee`, 32)),
  }
  const signer = f.get('signer')
  if (signer !== undefined && signer.kind !== 'null') {
    const s = objectFields(signer, `${path}.signer`, ['publicKey', 'proofOfPossession'])
    out.signer = {
      publicKey: hexOf(s.get('publicKey'), `${path}.signer.publicKey`, 48),
      proofOfPossession: hexOf(s.get('proofOfPossession'), `${path}.signer.proofOfPossession`, 96),
    }
  }
  return out
}

/** The reference fields of a genesis file's top-level members, each checked for its shape. */
export function parseNetworkGenesisConfig(fields: Map<string, JsonNode>): NetworkGenesisConfig {
  return {
    networkId: Number(uintField(fields.get('networkID'), 'networkID', 32)),
    allocations: arrayField(fields.get('allocations'), 'allocations').map((n, i) => allocation(n, `allocations[${i}]`)),
    startTime: uintField(fields.get('startTime'), 'startTime', 64),
    initialStakeDuration: uintField(fields.get('initialStakeDuration'), 'initialStakeDuration', 64),
    initialStakeDurationOffset: uintField(fields.get('initialStakeDurationOffset'), 'initialStakeDurationOffset', 64),
    initialStakedFunds: arrayField(fields.get('initialStakedFunds'), 'initialStakedFunds').map((n, i) =>
      avaxAddress(n, `initialStakedFunds[${i}]`),
    ),
    initialStakers: arrayField(fields.get('initialStakers'), 'initialStakers').map((n, i) =>
      staker(n, `initialStakers[${i}]`),
    ),
    cChainGenesis: stringField(fields.get('cChainGenesis'), 'cChainGenesis'),
    message: stringField(fields.get('message'), 'message'),
  }
}
