/** Values shared by the atomic codec's tests: the local network's identity and the well-known test key. */

import { toHex } from '../../../../../../src/chains/evm/atomic/hex.js'
import { shortAddressOfKey } from '../../../../../../src/chains/evm/atomic/sign.js'
import type { Hex, UnsignedExportTx, UnsignedImportTx } from '../../../../../../src/chains/evm/atomic/types.js'
import { idFromString } from '../../../../../../src/identity/ids.js'

export const hexId = (cb58: string): Hex => toHex(idFromString(cb58))

export const LOCAL = {
  networkId: 12345,
  cChainId: hexId('2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC'),
  xChainId: hexId('2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed'),
  pChainId: hexId('11111111111111111111111111111111LpoYY'),
  avaxAssetId: hexId('2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe'),
}

/** "ewoq": PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN */
export const EWOQ_KEY = Uint8Array.from(
  Buffer.from('56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027', 'hex'),
)
export const EWOQ_EVM = '0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc'
export const EWOQ_BECH32 = 'local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u'

export const txId = `0x${'ab'.repeat(32)}`

export const importTx = (): UnsignedImportTx => ({
  type: 'import',
  networkId: LOCAL.networkId,
  blockchainId: LOCAL.cChainId,
  sourceChain: LOCAL.xChainId,
  importedInputs: [
    { txId, outputIndex: 1, assetId: LOCAL.avaxAssetId, input: { amount: 5_000_000n, sigIndices: [0] } },
  ],
  outputs: [{ address: EWOQ_EVM, amount: 4_000_000n, assetId: LOCAL.avaxAssetId }],
})

export const exportTx = (): UnsignedExportTx => ({
  type: 'export',
  networkId: LOCAL.networkId,
  blockchainId: LOCAL.cChainId,
  destinationChain: LOCAL.xChainId,
  inputs: [{ address: EWOQ_EVM, amount: 5_000_000n, assetId: LOCAL.avaxAssetId, nonce: 3n }],
  exportedOutputs: [
    {
      assetId: LOCAL.avaxAssetId,
      output: { amount: 4_000_000n, locktime: 0n, threshold: 1, addresses: [shortAddressOfKey(EWOQ_KEY)] },
    },
  ],
})
