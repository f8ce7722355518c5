/**
 * `/firn/<networkId>/app/2`: AppRequest -> AppResponse | AppError (reference consensus.md 6, 7.1), one exchange
 * per request; the reply is a one-of of the two. The one-way `/firn/<networkId>/app-gossip/2` is in gossip.ts.
 */
import {
  type ExchangeService,
  type ExchangeSpec,
  exchangeService,
  protocolId,
  requestResponseSpec,
} from '../service/exchange.js'
import { AppMessage, type AppReply, type AppRequest } from './app.js'

export type { AppError, AppGossip, AppReply, AppRequest, AppResponse } from './app.js'
export { AppMessage } from './app.js'

export const APP_PROTOCOL_NAME = 'app'
export const appProtocol = (networkId: number): string => protocolId(networkId, APP_PROTOCOL_NAME)

/** The reference's SDK error codes (app_bytes handlers): -1 unexpected, -2 unregistered handler, -3 not a
 * validator, -4 throttled. A timed out AppRequest reaches the VM as code -1. */
export const AppErrorCode = { Unexpected: -1, UnregisteredHandler: -2, NotValidator: -3, Throttled: -4 } as const

export const appSpec: ExchangeSpec<AppMessage, AppRequest, AppReply> = requestResponseSpec(
  APP_PROTOCOL_NAME,
  AppMessage,
)

export type AppService = ExchangeService<AppMessage, AppRequest, AppReply>

export const appService = exchangeService(appSpec)
