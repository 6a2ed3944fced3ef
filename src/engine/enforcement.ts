import type { CompiledRule } from './rule.js';
import type { RuleFailure } from './rule-render.js';
import { goQuote } from './template/go-printf.js';

/**
 * Where a matching Reject rule's rendered text goes, by the rule's enforcement mode
 * (`api.kubemod.io/enforcement`): Enforce refuses the request (`rejections`), Warn admits it with
 * an admission warning (`warnings`), Audit admits it silently and is only counted (`audited`).
 * All three hold KubeMod's rejection format, `<ns>/<name>: "<message>"` or `<ns>/<name>`.
 */
export interface RejectOutcomes {
  readonly rejections: string[];
  readonly warnings: string[];
  readonly audited: string[];
}

export function recordRejection(rule: CompiledRule, text: string, out: RejectOutcomes): void {
  switch (rule.enforcement) {
    case 'Warn':
      out.warnings.push(text);
      return;
    case 'Audit':
      out.audited.push(text);
      return;
    case 'Enforce':
      out.rejections.push(text);
      return;
  }
}

/** Longest reason quoted in a fail-closed refusal (the failure's own message holds up to 1 KiB). */
export const MAX_REFUSAL_REASON = 200;

/**
 * The refusals of rules whose failure policy is Fail (`api.kubemod.io/failure-policy`) and that
 * could not be evaluated: one per such rule, in KubeMod's rejection format, so that every
 * consumer (the webhook's answer, dry runs, `test`, the audit) reads them as it reads a
 * rejection. A rule that already refuses the request (an Enforce rule whose message failed to
 * render) is not named twice.
 */
export function failClosedRefusals(
  failures: readonly RuleFailure[],
  rejections: readonly string[],
): string[] {
  const refusing = new Set(rejections.map(ruleOfRejection));
  const out: string[] = [];
  for (const failure of failures) {
    if (failure.failurePolicy !== 'Fail' || refusing.has(failure.rule)) continue;
    refusing.add(failure.rule);
    out.push(refusalText(failure));
  }
  return out;
}

/**
 * `<ns>/<name>: "could not be evaluated (failure policy Fail): KM5002 spec.patch[0].value: …"`:
 * the rule, why it failed (code, field, message) and why that refuses the request.
 */
export function refusalText(failure: RuleFailure): string {
  const field = failure.field === undefined ? '' : `${failure.field}: `;
  let reason = `${failure.code} ${field}${failure.message}`;
  if (reason.length > MAX_REFUSAL_REASON) reason = `${reason.slice(0, MAX_REFUSAL_REASON - 1)}…`;
  return `${failure.rule}: ${goQuote(`could not be evaluated (failure policy Fail): ${reason}`)}`;
}

/** `ns/name: "message"` or `ns/name` → `ns/name` (names and namespaces cannot contain ':'). */
export function ruleOfRejection(rejection: string): string {
  const colon = rejection.indexOf(':');
  return colon === -1 ? rejection : rejection.slice(0, colon);
}
