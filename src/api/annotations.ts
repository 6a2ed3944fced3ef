/**
 * ModRule behaviour chosen by annotation rather than by spec field, so the ModRule CRD stays
 * identical to KubeMod's: `api.kubemod.io/enforcement` (what a matching Reject rule does) and
 * `api.kubemod.io/failure-policy` (what the webhook does when a rule cannot be evaluated).
 * Values are case-sensitive, as Kubernetes enum values are; an invalid value is refused when the
 * ModRule is admitted (validate.ts), so the readers below only meet valid values or none.
 */

export const ENFORCEMENT_ANNOTATION = 'api.kubemod.io/enforcement';
export const FAILURE_POLICY_ANNOTATION = 'api.kubemod.io/failure-policy';
/** Opts a ModRule in to being applied to the objects that already exist (docs/audit.md). */
export const APPLY_TO_EXISTING_ANNOTATION = 'api.kubemod.io/apply-to-existing';

export const ENFORCEMENT_MODES = ['Enforce', 'Warn', 'Audit'] as const;
/** Enforce: refuse the request (the default). Warn: admit it with an admission warning. Audit: admit silently, count and report. */
export type EnforcementMode = (typeof ENFORCEMENT_MODES)[number];

export const FAILURE_POLICIES = ['Ignore', 'Fail'] as const;
/** Ignore: a rule that cannot be evaluated is skipped, logged and counted (the default). Fail: the request is refused. */
export type RuleFailurePolicy = (typeof FAILURE_POLICIES)[number];

type Annotations = Readonly<Record<string, string>> | undefined;

function isOneOf<T extends string>(values: readonly T[], value: string | undefined): value is T {
  return value !== undefined && (values as readonly string[]).includes(value);
}

/** The rule's enforcement mode; `Enforce` when the annotation is absent (or, defensively, invalid). */
export function enforcementOf(annotations: Annotations): EnforcementMode {
  const value = annotations?.[ENFORCEMENT_ANNOTATION];
  return isOneOf(ENFORCEMENT_MODES, value) ? value : 'Enforce';
}

/** The rule's failure policy; `Ignore` when the annotation is absent (or, defensively, invalid). */
export function failurePolicyOf(annotations: Annotations): RuleFailurePolicy {
  const value = annotations?.[FAILURE_POLICY_ANNOTATION];
  return isOneOf(FAILURE_POLICIES, value) ? value : 'Ignore';
}
