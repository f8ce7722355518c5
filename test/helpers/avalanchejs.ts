/**
 * avalanchejs (pinned 5.2.0) for tests and examples. Its declaration files import their siblings without file
 * extensions, which TypeScript's NodeNext resolution cannot follow from an ES module, so its namespaces arrive
 * untyped; this module gives the parts Firn's tests use their types (the runtime objects are avalanchejs's own).
 */
import * as avalanche from '@avalabs/avalanchejs'

/** `Context.getContextFromURI`'s result (avalanchejs src/vms/context/model.ts) */
export interface AvalancheContext {
  networkID: number
  hrp: string
  xBlockchainID: string
  pBlockchainID: string
  cBlockchainID: string
  avaxAssetID: string
  baseTxFee: bigint
  createAssetTxFee: bigint
  platformFeeConfig: {
    maxCapacity: bigint
    maxPerSecond: bigint
    targetPerSecond: bigint
    minPrice: bigint
    excessConversionConstant: bigint
  }
}

const lib = avalanche as unknown as {
  Context: { getContextFromURI(baseURL?: string, assetDescription?: string): Promise<AvalancheContext> }
}

export const getContextFromURI = (url: string): Promise<AvalancheContext> => lib.Context.getContextFromURI(url)
