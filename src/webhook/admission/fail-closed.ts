import type { AdmissionOperation } from '../../api/index.js';
import type { RuleStore } from '../../engine/store.js';
import { goQuote } from '../../engine/template/go-printf.js';
import { MAX_REFUSAL_REASON } from '../../engine/enforcement.js';

/** Rules named in a refusal of a request that could not be evaluated at all; the rest are counted. */
const MAX_NAMED_RULES = 5;

/**
 * The rules with failure policy Fail that would have been evaluated for a request the webhook
 * could not evaluate at all (it waited past its deadline, or failed as a whole, outside any one
 * rule): `<ns>/<name>` in execution order. Empty when no such rule applies, and the request is
 * then allowed unchanged as before. An indexed lookup in memory, no evaluation.
 */
export function failClosedCandidates(
  store: RuleStore,
  query: {
    readonly namespace: string | undefined;
    readonly kind: string | undefined;
    readonly operation: AdmissionOperation;
  },
): string[] {
  return (
    store
      .candidates(query)
      .filter((rule) => rule.failurePolicy === 'Fail')
      // A Patch rule has nothing to do on a DELETE (see evaluationSteps).
      .filter((rule) => rule.type === 'Reject' || query.operation !== 'DELETE')
      .map((rule) => rule.key)
  );
}

/**
 * The rejections (KubeMod's format) of such rules: each named with why the request refused,
 * `<ns>/<name>: "could not be evaluated (failure policy Fail): <reason>"`, at most
 * MAX_NAMED_RULES of them and then `(+N more)`.
 */
export function notEvaluatedRefusals(rules: readonly string[], reason: string): string[] {
  const cut =
    reason.length <= MAX_REFUSAL_REASON ? reason : `${reason.slice(0, MAX_REFUSAL_REASON - 1)}…`;
  const text = goQuote(`could not be evaluated (failure policy Fail): ${cut}`);
  const named = rules.slice(0, MAX_NAMED_RULES).map((rule) => `${rule}: ${text}`);
  const more = rules.length - named.length;
  if (more > 0) named.push(`(+${String(more)} more)`);
  return named;
}
