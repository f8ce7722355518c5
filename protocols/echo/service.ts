/**
 * `/firn/<networkId>/echo/2` (test-only): Echo{chainId, payload} -> the same Echo back. A request/response
 * exchange like ping that tests send through the request tracker, so timeouts and benching can be exercised
 * end to end. The node registers it only with test protocols on (FIRN_TEST_PROTOCOLS=1).
 */
import {
  type ExchangeService,
  type ExchangeSpec,
  exchangeService,
  protocolId,
  requestResponseSpec,
} from '../service/exchange.js'
import { type Echo, EchoMessage } from './echo.js'

export type { Echo } from './echo.js'

export const ECHO_PROTOCOL_NAME = 'echo'
export const echoProtocol = (networkId: number): string => protocolId(networkId, ECHO_PROTOCOL_NAME)

export const echoSpec: ExchangeSpec<EchoMessage, Echo, Echo> = requestResponseSpec(ECHO_PROTOCOL_NAME, EchoMessage)

export type EchoService = ExchangeService<EchoMessage, Echo, Echo>

export const echoService = exchangeService(echoSpec)

/** The answer to an echo: the request itself (same chain, same payload). */
export const echoAnswer = (request: Echo): Echo => ({ chainId: request.chainId, payload: request.payload })
