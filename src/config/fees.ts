/** `info.getTxFee` values in nAVAX, by network (reference/node-api.md section 7.4). All are decimal strings. */
import { NetworkId } from './networks.js'

export interface TxFees {
  txFee: string
  createAssetTxFee: string
  createSubnetTxFee: string
  transformSubnetTxFee: string
  createBlockchainTxFee: string
  addPrimaryNetworkValidatorFee: string
  addPrimaryNetworkDelegatorFee: string
  addSubnetValidatorFee: string
  addSubnetDelegatorFee: string
}

/** `txFee` and `createAssetTxFee` come from `--tx-fee` / `--create-asset-tx-fee` off mainnet and fuji. */
export function txFees(networkId: number, flags: { txFee: bigint; createAssetTxFee: bigint }): TxFees {
  const mainnet = networkId === NetworkId.mainnet
  const fuji = networkId === NetworkId.fuji
  const publicNet = mainnet || fuji
  return {
    txFee: publicNet ? '1000000' : flags.txFee.toString(),
    createAssetTxFee: publicNet ? '10000000' : flags.createAssetTxFee.toString(),
    createSubnetTxFee: mainnet ? '1000000000' : '100000000',
    transformSubnetTxFee: mainnet ? '10000000000' : fuji ? '1000000000' : '100000000',
    createBlockchainTxFee: mainnet ? '1000000000' : '100000000',
    addPrimaryNetworkValidatorFee: '0',
    addPrimaryNetworkDelegatorFee: '0',
    addSubnetValidatorFee: '1000000',
    addSubnetDelegatorFee: '1000000',
  }
}
