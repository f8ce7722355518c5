/**
 * Reaching into @ethereumjs/evm's build: the modules its entry does not export, and whether the installed release is
 * the one Firn's re-implementations of its internals (evm-run.ts, evm-loop.ts) follow.
 */
import { readFileSync } from 'node:fs'

const evmModule = import.meta.resolve('@ethereumjs/evm')
/**
 * A module of @ethereumjs/evm's build that its entry does not export (the interpreter class, `defaultBlock`), loaded
 * beside the entry: the same module instance the entry loads.
 */
export const evmInternal = (file: string): Promise<unknown> => import(new URL(file, evmModule).href)

/** the ethereumjs release whose `runInterpreter` (evm-run.ts) and `Interpreter.run` (evm-loop.ts) Firn follows */
export const FOLLOWS_EVM = '10.1.3'
/**
 * The installed @ethereumjs/evm is the one Firn follows; with another, FirnEVM runs ethereumjs' own (a test fails
 * until evm-run.ts and evm-loop.ts are checked against the new release and FOLLOWS_EVM moved).
 */
export const installedEvm: string = JSON.parse(readFileSync(new URL('../../package.json', evmModule), 'utf8')).version
export const followsInstalledEvm = installedEvm === FOLLOWS_EVM
