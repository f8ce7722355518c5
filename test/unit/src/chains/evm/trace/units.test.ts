import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseTraceCallConfig, parseTraceConfig } from '../../../../../../src/chains/evm/trace/config.js'
import { GoJsonError } from '../../../../../../src/chains/evm/trace/go-struct.js'
import { gethError, opName, stackInputs } from '../../../../../../src/chains/evm/trace/opcodes.js'
import { newTracer, TracerError } from '../../../../../../src/chains/evm/trace/registry.js'
import { unpackRevert } from '../../../../../../src/chains/evm/trace/revert.js'
import { defaultStructLoggerConfig } from '../../../../../../src/chains/evm/trace/struct-logger.js'

const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'))
const word = (n: bigint) => n.toString(16).padStart(64, '0')

describe('trace opcodes', () => {
  it('names ops as geth 1.13 does', () => {
    assert.equal(opName(0x20), 'KECCAK256')
    assert.equal(opName(0x44), 'DIFFICULTY')
    assert.equal(opName(0x5f), 'PUSH0')
    assert.equal(opName(0x7f), 'PUSH32')
    assert.equal(opName(0x8f), 'DUP16')
    assert.equal(opName(0x90), 'SWAP1')
    assert.equal(opName(0xa4), 'LOG4')
    assert.equal(opName(0x0c), 'opcode 0xc not defined')
    assert.equal(opName(0xef), 'opcode 0xef not defined')
  })

  it('counts stack inputs and maps EVM errors to geth texts', () => {
    assert.equal(stackInputs(0x01), 2)
    assert.equal(stackInputs(0xf1), 7)
    assert.equal(stackInputs(0x91), 3)
    assert.equal(stackInputs(0xa2), 4)
    assert.equal(stackInputs(0x60), 0)
    assert.equal(gethError('revert'), 'execution reverted')
    assert.equal(gethError('stack underflow', { op: 0x55, stackLen: 1 }), 'stack underflow (1 <=> 2)')
    assert.equal(gethError('invalid opcode', { op: 0xfe, stackLen: 0 }), 'invalid opcode: INVALID')
    assert.equal(gethError('invalid JUMP'), 'invalid jump destination')
    assert.equal(gethError('static state change'), 'write protection')
    assert.equal(gethError('out of gas'), 'out of gas')
  })
})

describe('unpackRevert', () => {
  it('decodes Error(string) and Panic(uint256), and refuses the rest', () => {
    const text = Buffer.from('nope').toString('hex').padEnd(64, '0')
    assert.equal(unpackRevert(hex(`08c379a0${word(32n)}${word(4n)}${text}`)), 'nope')
    assert.equal(unpackRevert(hex(`4e487b71${word(0x11n)}`)), 'arithmetic underflow or overflow')
    assert.equal(unpackRevert(hex(`4e487b71${word(0x99n)}`)), 'unknown panic code: 0x99')
    assert.equal(unpackRevert(hex(`08c379a0${word(32n)}${word(40n)}${text}`)), undefined)
    assert.equal(unpackRevert(hex('deadbeef')), undefined)
    assert.equal(unpackRevert(hex('08c3')), undefined)
  })
})

describe('trace configs', () => {
  it('reads TraceConfig keys case-insensitively with defaults', () => {
    const c = parseTraceConfig({ enablememory: true, DISABLESTACK: true, Limit: 7, tracer: 'callTracer', reexec: 3 })
    assert.deepEqual(c.structLogger, {
      ...defaultStructLoggerConfig(),
      enableMemory: true,
      disableStack: true,
      limit: 7,
    })
    assert.equal(c.tracer, 'callTracer')
    assert.equal(c.reexec, 3n)
    assert.equal(parseTraceConfig(null).reexec, 128n)
    assert.equal(parseTraceConfig({ tracer: null }).tracer, undefined)
    assert.equal(parseTraceCallConfig({ txIndex: '0x2' }).txIndex, 2n)
  })

  it('fails with Go json texts', () => {
    const fails = (f: () => unknown, message: string) =>
      assert.throws(f, (e) => e instanceof GoJsonError && e.message === message)
    fails(() => parseTraceConfig('x'), 'json: cannot unmarshal string into Go value of type tracers.TraceConfig')
    fails(
      () => parseTraceConfig({ limit: 1.5 }),
      'json: cannot unmarshal number 1.5 into Go struct field TraceConfig.Limit of type int',
    )
    fails(
      () => parseTraceConfig({ reexec: -1 }),
      'json: cannot unmarshal number -1 into Go struct field TraceConfig.Reexec of type uint64',
    )
    fails(
      () => parseTraceCallConfig({ disableStorage: 'yes' }),
      'json: cannot unmarshal string into Go struct field TraceCallConfig.DisableStorage of type bool',
    )
    fails(
      () => parseTraceCallConfig({ txIndex: '2' }),
      'json: cannot unmarshal hex string without 0x prefix into Go struct field TraceCallConfig.TxIndex of type hexutil.Uint',
    )
  })

  it('knows the native tracers and refuses JavaScript', () => {
    const cfg = defaultStructLoggerConfig()
    assert.deepEqual(newTracer('noopTracer', cfg, undefined).result(), {})
    assert.deepEqual(newTracer('4byteTracer', cfg, undefined).result(), {})
    assert.deepEqual(newTracer('muxTracer', cfg, { noopTracer: null, '4byteTracer': {} }).result(), {
      '4byteTracer': {},
      noopTracer: {},
    })
    assert.throws(
      () => newTracer('{step: function() {}}', cfg, undefined),
      (e) =>
        e instanceof TracerError &&
        e.message === 'tracer not found: {step: function() {}} (JavaScript tracers are not supported)',
    )
    assert.throws(
      () => newTracer('prestateTracer', cfg, { diffMode: 'on' }),
      (e) =>
        e instanceof TracerError &&
        e.message === 'json: cannot unmarshal string into Go struct field prestateTracerConfig.diffMode of type bool',
    )
    assert.throws(
      () => newTracer('callTracer', cfg, [1]),
      (e) =>
        e instanceof TracerError &&
        e.message === 'json: cannot unmarshal array into Go value of type native.callTracerConfig',
    )
  })
})
