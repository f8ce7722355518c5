/**
 * The single writer's slices. A block run executes its txs (block-run.ts, between txs), then commits its state
 * (trie-bulk.ts), builds its tx and receipt tries, walks its layer's reachable nodes and fills the accept batch
 * (node-layer.ts, store/chain-store.ts); when pruning runs (exec/executor.ts) it marks, scans and deletes
 * (prune.ts). Every COMMIT_SLICE_MS of that work the writer lets the event loop in (setImmediate), so calls are
 * answered during a long block. Only the single writer does this work (views keep their writes in their caches),
 * and nothing reads a trie while its root is being computed.
 */
const COMMIT_SLICE_MS = 5
let sliceStart = performance.now()

/**
 * a pause for the event loop when the writer has held it for a slice, else undefined. The writer goes on two
 * check phases later: the loop turn that starts meanwhile reads the waiting requests, and the answers they made are
 * written at that turn's end (src/api/http/turn-writes.ts) before the next slice; one hop would run the slice first.
 */
export function commitPause(): Promise<void> | undefined {
  const now = performance.now()
  if (now - sliceStart < COMMIT_SLICE_MS) return undefined
  return new Promise<void>((resolve) =>
    setImmediate(() =>
      setImmediate(() => {
        sliceStart = performance.now()
        resolve()
      }),
    ),
  )
}
