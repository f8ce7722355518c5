/**
 * The `debug` package (ethereumjs logs through it) decides whether a new logger colours its output by calling
 * `isatty(stderr)` every time one is created, unless `inspectOpts.colors` is set. ethereumjs creates loggers in
 * every trie, state manager, journal and EVM, so Firn paid a system call per eth_call and several per block
 * (~45 us of an eth_call, 4 % of the node's CPU under eth_call load). The answer cannot change while the process
 * runs, so it is asked once here, keeping any DEBUG_COLORS the user set.
 */
import { isatty } from 'node:tty'
import createDebug from 'debug'

const opts = createDebug.inspectOpts as { colors?: boolean }
if (!('colors' in opts)) opts.colors = isatty(process.stderr.fd)
