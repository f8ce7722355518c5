/**
 * A chain VM's `AppSender` (src/chains/vm.ts) over the network's chain router: app requests and gossip to the
 * chain's peers under its chain ID, the connected peers, the chain's validators. An AppError that comes back
 * reaches the VM as the interface's `AppError`.
 */
import { AppError, type AppSender } from '../chains/vm.js'
import { AppRequestError, type ChainRouter } from '../network/chain-router.js'

export function chainAppSender(
  router: Pick<ChainRouter, 'appRequest' | 'appGossip' | 'connectedNodeIds'>,
  chainId: string,
  validators: () => readonly { nodeId: string; weight: bigint }[],
): AppSender {
  return {
    request: (nodeId, bytes) =>
      router.appRequest(nodeId, chainId, bytes).catch((err: unknown) => {
        throw err instanceof AppRequestError ? new AppError(err.code, err.message) : err
      }),
    gossip: (nodeIds, bytes) => router.appGossip(nodeIds, chainId, bytes),
    connected: () => router.connectedNodeIds(),
    validators,
  }
}
