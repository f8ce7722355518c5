/**
 * Atomic transactions with avalanchejs, step by step, against a throwaway `firn --dev` that also runs `D`, a
 * second EVM chain: read the context from the node's URL, read the UTXOs the X chain left for C (the dev preset
 * seeds five of 1,000 AVAX for the test key), import one into C, export 25 AVAX from C to D, import them on D.
 * Each step polls `avax.getAtomicTxStatus` until the tx is Accepted and checks the balance it changed to the wei.
 *
 *   node --import tsx examples/08-atomic.ts
 *
 * The same against a node you run yourself: `firn --dev --genesis-file=chains.json` (chains.json as below), then
 * point the URL at it. avalanchejs's `evm.EVMApi` calls `/ext/bc/C/avax`; on D the same calls are made by hand.
 */
import '../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EWOQ_ADDRESS, EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { ajs, type ExportTx, type ImportTx, type TransferOutput, type Utxo } from '../test/helpers/avalanchejs.js'
import { startFirn } from '../test/helpers/firn-process.js'

const { Context, evm, secp256k1, utils, addTxSignatures } = ajs
const WEI_PER_NAVAX = 1_000_000_000n
const avax = (nAvax: bigint) => `${Number(nAvax) / 1e9} AVAX`

// a dev node with D next to C: EIP-155 chain ID 99999, the test key funded
const dir = await mkdtemp(join(tmpdir(), 'firn-example-atomic-'))
const genesisFile = join(dir, 'chains.json')
await writeFile(
  genesisFile,
  JSON.stringify({
    chains: [
      {
        name: 'D',
        vm: 'evm',
        genesis: {
          config: { chainId: 99999 },
          gasLimit: '0x7A1200',
          alloc: { [EWOQ_ADDRESS.slice(2)]: { balance: '0xD3C21BCECCEDA1000000' } },
        },
      },
    ],
  }),
)
const node = await startFirn({ args: ['--dev', `--genesis-file=${genesisFile}`] })

/** one JSON-RPC call; throws the node's error text */
async function call<T>(path: string, method: string, params: unknown): Promise<T> {
  const res = await fetch(`${node.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: T; error?: { message: string } }
  if (body.error) throw new Error(body.error.message)
  return body.result as T
}
const balanceOn = async (chain: string) =>
  BigInt(await call<string>(`/ext/bc/${chain}/rpc`, 'eth_getBalance', [EWOQ_ADDRESS, 'latest']))
/** avalanchejs's builders take the base fee in nAVAX per gas: eth_baseFee (wei) rounded up, at least 1 */
const nAvaxPerGas = (wei: bigint) => (wei + WEI_PER_NAVAX - 1n) / WEI_PER_NAVAX || 1n
/** polls a status call until the tx is neither Processing nor Unknown */
async function finalStatus(poll: () => Promise<{ status: string; blockHeight?: string }>) {
  for (let i = 0; ; i++) {
    const s = await poll()
    if ((s.status !== 'Processing' && s.status !== 'Unknown') || i === 400) return s
    await new Promise((r) => setTimeout(r, 50))
  }
}
const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n)

try {
  // 1. the context: network ID, HRP, chain IDs, the AVAX asset (info.*, avm.*, platform.* calls)
  const context = await Context.getContextFromURI(node.url)
  const dChainID = (await call<{ blockchainID: string }>('/ext/info', 'info.getBlockchainID', { alias: 'D' }))
    .blockchainID
  console.log(`1. network ${context.networkID} (${context.hrp}); X ${context.xBlockchainID}`)
  console.log(`   C ${context.cBlockchainID}; D ${dChainID}; AVAX ${context.avaxAssetID}`)

  // 2. the key: its short address owns UTXOs (C-local1..., D-local1...), its EVM address holds balances
  const privateKey = utils.hexToBuffer(`0x${EWOQ_PRIVATE_KEY}`)
  const publicKey = secp256k1.getPublicKey(privateKey)
  const shortAddress = secp256k1.publicKeyBytesToAddress(publicKey)
  const evmAddress = secp256k1.publicKeyToEthAddress(publicKey)
  const cAddress = utils.format('C', context.hrp, shortAddress)
  assert.equal(utils.bufferToHex(evmAddress), EWOQ_ADDRESS.toLowerCase())
  console.log(`2. UTXO owner ${cAddress}; EVM address ${utils.bufferToHex(evmAddress)}`)

  // 3. the UTXOs X exported to C for this address
  const cApi = new evm.EVMApi(node.url)
  const { utxos } = await cApi.getUTXOs({ sourceChain: 'X', addresses: [cAddress] })
  const amountOf = (u: Utxo) => (u.output as TransferOutput).amt.value()
  assert.equal(utxos.length, 5)
  console.log(`3. ${utxos.length} UTXOs from X: ${utxos.map((u) => avax(amountOf(u))).join(', ')}`)

  // 4. import one into C: build, sign, issue, poll
  const utxo = utxos[0] as Utxo
  const cBefore = await balanceOn('C')
  const importTx = evm.newImportTxFromBaseFee(
    context,
    evmAddress,
    [shortAddress],
    [utxo],
    context.xBlockchainID,
    nAvaxPerGas(await cApi.getBaseFee()),
  )
  const imported = importTx.getTx() as ImportTx
  const importFee = amountOf(utxo) - sum(imported.Outs.map((o) => o.amount.value()))
  await addTxSignatures({ unsignedTx: importTx, privateKeys: [privateKey] })
  const { txID: importID } = await cApi.issueSignedTx(importTx.getSignedTx())
  const importStatus = await finalStatus(() => cApi.getAtomicTxStatus(importID))
  assert.equal(importStatus.status, 'Accepted')
  assert.equal((await balanceOn('C')) - cBefore, (amountOf(utxo) - importFee) * WEI_PER_NAVAX)
  console.log(`4. import X -> C ${importID}: ${importStatus.status} in block ${importStatus.blockHeight}`)
  console.log(`   C balance +${avax(amountOf(utxo) - importFee)} (fee ${importFee} nAVAX)`)

  // 5. export 25 AVAX from C to D: the destination is D's chain ID, the nonce is the EVM address's
  const amount = 25n * WEI_PER_NAVAX
  const nonce = BigInt(await call<string>('/ext/bc/C/rpc', 'eth_getTransactionCount', [EWOQ_ADDRESS, 'latest']))
  const cBeforeExport = await balanceOn('C')
  const exportTx = evm.newExportTxFromBaseFee(
    context,
    nAvaxPerGas(await cApi.getBaseFee()),
    amount,
    dChainID,
    evmAddress,
    [shortAddress],
    nonce,
  )
  const exported = exportTx.getTx() as ExportTx
  const exportFee = sum(exported.ins.map((i) => i.amount.value())) - amount
  await addTxSignatures({ unsignedTx: exportTx, privateKeys: [privateKey] })
  const { txID: exportID } = await cApi.issueSignedTx(exportTx.getSignedTx())
  const exportStatus = await finalStatus(() => cApi.getAtomicTxStatus(exportID))
  assert.equal(exportStatus.status, 'Accepted')
  assert.equal(cBeforeExport - (await balanceOn('C')), (amount + exportFee) * WEI_PER_NAVAX)
  console.log(`5. export C -> D ${exportID}: ${exportStatus.status} in block ${exportStatus.blockHeight}`)
  console.log(`   C balance -${avax(amount + exportFee)} (fee ${exportFee} nAVAX)`)

  // 6. import on D: the same calls at /ext/bc/D/avax, the UTXO owner as D-local1..., the source chain C
  const dAddress = utils.format('D', context.hrp, shortAddress)
  const page = await call<{ utxos: string[] }>('/ext/bc/D/avax', 'avax.getUTXOs', {
    addresses: [dAddress],
    sourceChain: 'C',
    encoding: 'hex',
  })
  // each UTXO is hex with a 4-byte checksum
  const onD = page.utxos.map(
    (hex) => utils.getManagerForVM('EVM').unpack(utils.hexToBuffer(hex).slice(0, -4), ajs.Utxo) as Utxo,
  )
  assert.equal(onD.length, 1)
  assert.equal(amountOf(onD[0] as Utxo), amount)
  console.log(`6. ${dAddress} has ${avax(amount)} waiting from C`)
  const dBefore = await balanceOn('D')
  const dBaseFee = BigInt(await call<string>('/ext/bc/D/rpc', 'eth_baseFee', []))
  const importOnD = evm.newImportTxFromBaseFee(
    { ...context, cBlockchainID: dChainID }, // the builders name the destination EVM chain cBlockchainID
    evmAddress,
    [shortAddress],
    onD,
    context.cBlockchainID,
    nAvaxPerGas(dBaseFee),
  )
  const dFee = amount - sum((importOnD.getTx() as ImportTx).Outs.map((o) => o.amount.value()))
  await addTxSignatures({ unsignedTx: importOnD, privateKeys: [privateKey] })
  const signed = utils.bufferToHex(utils.addChecksum(importOnD.getSignedTx().toBytes()))
  const { txID: dImportID } = await call<{ txID: string }>('/ext/bc/D/avax', 'avax.issueTx', {
    tx: signed,
    encoding: 'hex',
  })
  const dStatus = await finalStatus(() =>
    call<{ status: string; blockHeight?: string }>('/ext/bc/D/avax', 'avax.getAtomicTxStatus', { txID: dImportID }),
  )
  assert.equal(dStatus.status, 'Accepted')
  assert.equal((await balanceOn('D')) - dBefore, (amount - dFee) * WEI_PER_NAVAX)
  console.log(`   import on D ${dImportID}: ${dStatus.status} in block ${dStatus.blockHeight}`)
  console.log(`   D balance +${avax(amount - dFee)} (fee ${dFee} nAVAX)`)
} finally {
  await node.cleanup()
  await rm(dir, { recursive: true, force: true })
}
