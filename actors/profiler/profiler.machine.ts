/**
 * The profiler: answers `admin.startCPUProfiler`, `stopCPUProfiler`, `memoryProfile`, `lockProfile` and Firn's
 * `heapSnapshot` (and the C-chain's admin twins). Pure: the five IO steps are named promise slots the composition root `provide`s
 * (`src/profiling/profiler.impl.ts`). Every command carries a `requestId` and gets exactly one emitted `reply`
 * in every state.
 *
 * Two parallel regions, because a memory, lock or heap-snapshot profile can be written whatever the CPU profiler is doing:
 *
 * - `cpu`: `idle -> starting -> running -> stopping -> idle`. A stop that arrives while starting waits for the
 *   start and then stops; a start that arrives while stopping waits for the stop and then starts again. An IO
 *   failure answers with the error's message and lands in a usable state.
 * - `snapshot`: `ready -> writing -> ready`. Requests that arrive while a profile is being written queue up in
 *   context (at most `queueLimit`, beyond that they are refused) and are served in order, one reply each.
 */
import { assign, emit, enqueueActions, setup } from 'xstate'
import { notProvidedPromise } from '../not-provided.js'
import { replyError, replyOk } from '../reply.js'
import {
  errorMessage,
  PROFILER_ERROR_ALREADY_RUNNING,
  PROFILER_ERROR_NOT_RUNNING,
  PROFILER_ERROR_QUEUE_FULL,
  type ProfilerCommand,
  type ProfilerContext,
  type ProfilerEmitted,
  type ProfilerInput,
  profilerContext,
  toSnapshotRequest,
} from './profiler.types.js'

export * from './profiler.types.js'

/** What the profiler's IO slots are invoked with: whose profiler it is (`node`, or a chain's alias). */
export interface ProfilerSlotInput {
  label: string
}

export const profilerMachine = setup({
  types: {
    input: {} as ProfilerInput,
    context: {} as ProfilerContext,
    events: {} as ProfilerCommand,
    emitted: {} as ProfilerEmitted,
  },
  actors: {
    startCpuProfile: notProvidedPromise<void, ProfilerSlotInput>('startCpuProfile'),
    stopCpuProfile: notProvidedPromise<void, ProfilerSlotInput>('stopCpuProfile'),
    writeMemoryProfile: notProvidedPromise<void, ProfilerSlotInput>('writeMemoryProfile'),
    writeLockProfile: notProvidedPromise<void, ProfilerSlotInput>('writeLockProfile'),
    writeHeapSnapshot: notProvidedPromise<void, ProfilerSlotInput>('writeHeapSnapshot'),
  },
  actions: {
    /** answer the command being handled with an error */
    refuse: emit(({ event }, params: { message: string }) => replyError(event.requestId, params.message)),
    /** answer the start / stop / profile write being served: `{}`, or the IO error's message */
    replyStarted: emit(({ context }) => replyOk(context.startRequest ?? '')),
    replyStopped: emit(({ context }) => replyOk(context.stopRequest ?? '')),
    replyWritten: emit(({ context }) => replyOk(context.writing?.requestId ?? '')),
    replyStartFailed: emit(({ context }, p: { error: unknown }) =>
      replyError(context.startRequest ?? '', errorMessage(p.error)),
    ),
    replyStopFailed: emit(({ context }, p: { error: unknown }) =>
      replyError(context.stopRequest ?? '', errorMessage(p.error)),
    ),
    replyWriteFailed: emit(({ context }, p: { error: unknown }) =>
      replyError(context.writing?.requestId ?? '', errorMessage(p.error)),
    ),
    rememberStart: assign({ startRequest: ({ event }) => event.requestId }),
    rememberStop: assign({ stopRequest: ({ event }) => event.requestId }),
    deferStart: assign({ deferredStart: ({ event }) => event.requestId }),
    deferStop: assign({ deferredStop: ({ event }) => event.requestId }),
    /** the deferred start becomes the start being served */
    promoteDeferredStart: assign(({ context }) => ({ startRequest: context.deferredStart, deferredStart: null })),
    /** the deferred stop becomes the stop being served */
    promoteDeferredStop: assign(({ context }) => ({ stopRequest: context.deferredStop, deferredStop: null })),
    /** the start/stop being served was answered (a deferred stop is promoted or refused separately) */
    clearCpuRequests: assign({ startRequest: null, stopRequest: null }),
    /** a start failed: a stop waiting for it has nothing to stop */
    refuseDeferredStop: enqueueActions(({ context, enqueue }) => {
      if (context.deferredStop === null) return
      enqueue.emit(replyError(context.deferredStop, PROFILER_ERROR_NOT_RUNNING))
      enqueue.assign({ deferredStop: null })
    }),
    beginWrite: assign({ writing: ({ event }) => toSnapshotRequest(event) }),
    queueWrite: assign({ queue: ({ context, event }) => [...context.queue, toSnapshotRequest(event)] }),
    takeNextWrite: assign(({ context }) => ({ writing: context.queue[0] ?? null, queue: context.queue.slice(1) })),
    clearWrite: assign({ writing: null }),
  },
  guards: {
    hasDeferredStart: ({ context }) => context.deferredStart !== null,
    hasDeferredStop: ({ context }) => context.deferredStop !== null,
    queueIsFull: ({ context }) => context.queue.length >= context.queueLimit,
    queueIsEmpty: ({ context }) => context.queue.length === 0,
    writingMemory: ({ context }) => context.writing?.kind === 'memory',
    writingHeapSnapshot: ({ context }) => context.writing?.kind === 'heapSnapshot',
  },
}).createMachine({
  id: 'profiler',
  type: 'parallel',
  context: ({ input }) => profilerContext(input),
  states: {
    cpu: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'profiler.start': { target: 'starting', actions: 'rememberStart' },
            'profiler.stop': { actions: { type: 'refuse', params: { message: PROFILER_ERROR_NOT_RUNNING } } },
          },
        },
        starting: {
          invoke: {
            id: 'startCpuProfile',
            src: 'startCpuProfile',
            input: ({ context }) => ({ label: context.label }),
            onDone: [
              {
                guard: 'hasDeferredStop',
                target: 'stopping',
                actions: ['replyStarted', 'clearCpuRequests', 'promoteDeferredStop'],
              },
              { target: 'running', actions: ['replyStarted', 'clearCpuRequests'] },
            ],
            onError: {
              target: 'idle',
              actions: [
                { type: 'replyStartFailed', params: ({ event }) => ({ error: event.error }) },
                'refuseDeferredStop',
                'clearCpuRequests',
              ],
            },
          },
          on: {
            'profiler.start': { actions: { type: 'refuse', params: { message: PROFILER_ERROR_ALREADY_RUNNING } } },
            'profiler.stop': [
              {
                guard: 'hasDeferredStop',
                actions: { type: 'refuse', params: { message: PROFILER_ERROR_NOT_RUNNING } },
              },
              { actions: 'deferStop' },
            ],
          },
        },
        running: {
          on: {
            'profiler.start': { actions: { type: 'refuse', params: { message: PROFILER_ERROR_ALREADY_RUNNING } } },
            'profiler.stop': { target: 'stopping', actions: 'rememberStop' },
          },
        },
        stopping: {
          invoke: {
            id: 'stopCpuProfile',
            src: 'stopCpuProfile',
            input: ({ context }) => ({ label: context.label }),
            onDone: [
              {
                guard: 'hasDeferredStart',
                target: 'starting',
                actions: ['replyStopped', 'clearCpuRequests', 'promoteDeferredStart'],
              },
              { target: 'idle', actions: ['replyStopped', 'clearCpuRequests'] },
            ],
            // the profile is lost, but the machine stays usable (and a waiting start goes ahead)
            onError: [
              {
                guard: 'hasDeferredStart',
                target: 'starting',
                actions: [
                  { type: 'replyStopFailed', params: ({ event }) => ({ error: event.error }) },
                  'clearCpuRequests',
                  'promoteDeferredStart',
                ],
              },
              {
                target: 'idle',
                actions: [
                  { type: 'replyStopFailed', params: ({ event }) => ({ error: event.error }) },
                  'clearCpuRequests',
                ],
              },
            ],
          },
          on: {
            'profiler.stop': { actions: { type: 'refuse', params: { message: PROFILER_ERROR_NOT_RUNNING } } },
            'profiler.start': [
              {
                guard: 'hasDeferredStart',
                actions: { type: 'refuse', params: { message: PROFILER_ERROR_ALREADY_RUNNING } },
              },
              { actions: 'deferStart' },
            ],
          },
        },
      },
    },
    snapshot: {
      initial: 'ready',
      states: {
        ready: {
          on: {
            'profiler.memory': { target: 'writing', actions: 'beginWrite' },
            'profiler.lock': { target: 'writing', actions: 'beginWrite' },
            'profiler.heapSnapshot': { target: 'writing', actions: 'beginWrite' },
          },
        },
        writing: {
          initial: 'dispatch',
          on: {
            'profiler.memory': [
              { guard: 'queueIsFull', actions: { type: 'refuse', params: { message: PROFILER_ERROR_QUEUE_FULL } } },
              { actions: 'queueWrite' },
            ],
            'profiler.lock': [
              { guard: 'queueIsFull', actions: { type: 'refuse', params: { message: PROFILER_ERROR_QUEUE_FULL } } },
              { actions: 'queueWrite' },
            ],
            'profiler.heapSnapshot': [
              { guard: 'queueIsFull', actions: { type: 'refuse', params: { message: PROFILER_ERROR_QUEUE_FULL } } },
              { actions: 'queueWrite' },
            ],
          },
          states: {
            /** transient: pick the slot for `context.writing` */
            dispatch: {
              always: [
                { guard: 'writingMemory', target: 'memory' },
                { guard: 'writingHeapSnapshot', target: 'heapSnapshot' },
                { target: 'lock' },
              ],
            },
            memory: {
              invoke: {
                id: 'writeMemoryProfile',
                src: 'writeMemoryProfile',
                input: ({ context }) => ({ label: context.label }),
                onDone: { target: 'next', actions: 'replyWritten' },
                onError: {
                  target: 'next',
                  actions: { type: 'replyWriteFailed', params: ({ event }) => ({ error: event.error }) },
                },
              },
            },
            lock: {
              invoke: {
                id: 'writeLockProfile',
                src: 'writeLockProfile',
                input: ({ context }) => ({ label: context.label }),
                onDone: { target: 'next', actions: 'replyWritten' },
                onError: {
                  target: 'next',
                  actions: { type: 'replyWriteFailed', params: ({ event }) => ({ error: event.error }) },
                },
              },
            },
            heapSnapshot: {
              invoke: {
                id: 'writeHeapSnapshot',
                src: 'writeHeapSnapshot',
                input: ({ context }) => ({ label: context.label }),
                onDone: { target: 'next', actions: 'replyWritten' },
                onError: {
                  target: 'next',
                  actions: { type: 'replyWriteFailed', params: ({ event }) => ({ error: event.error }) },
                },
              },
            },
            /** transient: serve the next queued request, or go back to ready */
            next: {
              always: [
                { guard: 'queueIsEmpty', target: '#profiler.snapshot.ready', actions: 'clearWrite' },
                { target: 'dispatch', actions: 'takeNextWrite' },
              ],
            },
          },
        },
      },
    },
  },
})
