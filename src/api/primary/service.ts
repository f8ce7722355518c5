/**
 * The X and P chains' read-only calls that avalanchejs's `Context.getContextFromURI(url)` makes, answered from the
 * network preset's constants with the reference's shapes (Firn runs no X or P chain):
 *
 * - `avm.getAssetDescription {assetID}` at `/ext/bc/X`: the primary asset, by its alias `AVAX` or its ID:
 *   `{"assetID", "name": "Avalanche", "symbol": "AVAX", "denomination": "9"}`; anything else is
 *   `asset '<x>' not found` (the reference's text for an unknown alias; an unknown ID is `not found`);
 * - `avm.getTxFee` at `/ext/bc/X`: `{"txFee", "createAssetTxFee"}` in nAVAX as decimal strings;
 * - `platform.getFeeConfig` at `/ext/bc/P`: the dynamic fee config every preset network has (JSON numbers).
 *
 * Every other `avm.*` or `platform.*` method answers the gorilla server's `can't find method` error (docs/api.md).
 */
import { txFees } from '../../config/fees.js'
import { idFromString, idToString } from '../../identity/ids.js'
import { fields, noParams, str } from '../../rpc/params.js'
import { defineMethod, type RpcService } from '../../rpc/service.js'
import { FirnError } from '../../runtime/errors.js'

export interface PrimaryDeps {
  networkId: number
  /** the network's AVAX asset ID (CB58) */
  avaxAssetId: string
  /** `--tx-fee` / `--create-asset-tx-fee` (nAVAX), as `info.getTxFee` reads them */
  fees: { txFee: string | number | bigint; createAssetTxFee: string | number | bigint }
}

/** The P-chain dynamic fee config of every preset network (genesis params: ~1 MB blocks, doubling every 30 s). */
export const PRIMARY_DYNAMIC_FEE_CONFIG = {
  weights: [1, 1000, 1000, 4],
  maxCapacity: 1_000_000,
  maxPerSecond: 100_000,
  targetPerSecond: 50_000,
  minPrice: 1,
  excessConversionConstant: 2_164_043,
} as const

/** `avm.*`: the X chain's asset description and static fees. */
export function avmService(d: PrimaryDeps): RpcService {
  return {
    name: 'avm',
    methods: {
      GetAssetDescription: defineMethod(fields({ assetID: str }), ({ assetID }) => {
        let id: string | undefined
        if (assetID === 'AVAX') id = d.avaxAssetId
        else {
          try {
            id = idToString(idFromString(assetID))
          } catch {
            throw new FirnError(`asset '${assetID}' not found`)
          }
        }
        if (id !== d.avaxAssetId) throw new FirnError('not found')
        return { assetID: id, name: 'Avalanche', symbol: 'AVAX', denomination: '9' }
      }),
      GetTxFee: defineMethod(noParams, () => {
        const fees = txFees(d.networkId, {
          txFee: BigInt(d.fees.txFee),
          createAssetTxFee: BigInt(d.fees.createAssetTxFee),
        })
        return { txFee: fees.txFee, createAssetTxFee: fees.createAssetTxFee }
      }),
    },
  }
}

/** `platform.*`: the P chain's dynamic fee config. */
export function platformService(): RpcService {
  return {
    name: 'platform',
    methods: {
      GetFeeConfig: defineMethod(noParams, () => ({
        ...PRIMARY_DYNAMIC_FEE_CONFIG,
        weights: [...PRIMARY_DYNAMIC_FEE_CONFIG.weights],
      })),
    },
  }
}
