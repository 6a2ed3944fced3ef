import type { EvaluationResult } from '../evaluate.js';
import type { PendingAsk } from './cluster-view.js';

/**
 * Performs the asynchronous steps that `pending` asks wait for (an access review, a provider
 * call) and fills the caches the ClusterView reads, so that the next evaluation finds answers.
 * `deadlineMs`: milliseconds left for this call; the resolver returns by then, whatever it got.
 */
export interface AskResolver {
  resolve(asks: readonly PendingAsk[], deadlineMs: number): Promise<void>;
}

/** Time a resolve round may take when the caller gives no deadline. */
export const DEFAULT_RESOLVE_MS = 1_000;

/**
 * Evaluates; while some lookups answered `pending`, resolves them and evaluates again, at most
 * `rounds` times. Asks still pending after the last round stay rule failures (LOOKUP_PENDING,
 * "not resolved"), which each rule's failure policy decides, and the result's `pending` is
 * emptied: the answer is final. With no pending asks the first result is returned unchanged, so
 * rules without lookups cost nothing extra. `timeLeftMs` says how long the caller may still wait
 * (the webhook's deadline); no round starts when nothing is left.
 */
export async function evaluateWithLookups(
  evaluate: () => EvaluationResult | Promise<EvaluationResult>,
  resolver: AskResolver | undefined,
  rounds = 3,
  timeLeftMs: () => number = () => DEFAULT_RESOLVE_MS,
): Promise<EvaluationResult> {
  let result = await evaluate();
  for (let round = 0; round < rounds && result.pending.length > 0; round++) {
    const left = timeLeftMs();
    if (resolver === undefined || left <= 0) break;
    await resolver.resolve(result.pending, left);
    result = await evaluate();
  }
  return result.pending.length === 0 ? result : { ...result, pending: [] };
}
