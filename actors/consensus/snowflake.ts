/**
 * Snowflake decision instance, pure and JSON-safe: the preference is the choice of the last poll that
 * reached αp; confidence counts consecutive αc-successful polls for it; β of them finalize.
 */
import type { SnowParams } from './params.js'

export interface SnowflakeState<C = string> {
  preference: C
  confidence: number
  finalized: boolean
}

export const newSnowflake = <C>(initialPreference: C): SnowflakeState<C> => ({
  preference: initialPreference,
  confidence: 0,
  finalized: false,
})

/** Records a poll in which `choice` received `count` votes. Returns the new state. */
export function recordPoll<C>(
  state: SnowflakeState<C>,
  count: number,
  choice: C,
  params: Pick<SnowParams, 'alphaPreference' | 'alphaConfidence' | 'beta'>,
): SnowflakeState<C> {
  if (state.finalized) return state
  if (count < params.alphaPreference) return { ...state, confidence: 0 }
  const confidence = choice === state.preference ? state.confidence : 0
  if (count < params.alphaConfidence) return { preference: choice, confidence: 0, finalized: false }
  const next = confidence + 1
  return { preference: choice, confidence: next, finalized: next >= params.beta }
}

/**
 * Records a poll in which no choice reached αp: confidence drops to 0. As in the reference this applies
 * even once finalized, where it changes nothing that matters (finalized and preference stay).
 */
export function recordUnsuccessfulPoll<C>(state: SnowflakeState<C>): SnowflakeState<C> {
  return { ...state, confidence: 0 }
}
