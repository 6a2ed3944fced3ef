import {
  ENFORCEMENT_ANNOTATION,
  ENFORCEMENT_MODES,
  FAILURE_POLICIES,
  FAILURE_POLICY_ANNOTATION,
} from './annotations.js';
import type { FieldReader } from './field-reader.js';
import type { ModRuleType } from './modrule-types.js';

/** Longest annotation value quoted back in an error message. */
const MAX_QUOTED_CHARS = 40;

/**
 * Reads and checks the behaviour annotations of a ModRule (`api.kubemod.io/enforcement`,
 * `api.kubemod.io/failure-policy`) and returns just those, so that the rule carries them and
 * nothing else of its metadata's annotations. Errors name the annotation as the field
 * (`metadata.annotations[api.kubemod.io/enforcement]`) and the reason:
 * - a value outside the enum (case-sensitive, as Kubernetes enum values are);
 * - `enforcement` on a Patch rule: a Patch rule never refuses a request, so there is nothing to
 *   warn about or audit instead; accepting it would let an author believe the rule is gated;
 * - `failure-policy: Fail` on a Warn or Audit rule: Fail refuses requests, which those modes
 *   promise never to do (promote the rule to Enforce first).
 * Other annotations are not looked at: they are the API server's business.
 */
export function readBehaviourAnnotations(
  r: FieldReader,
  annotations: unknown,
  type: ModRuleType | undefined,
): Readonly<Record<string, string>> | undefined {
  if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations)) {
    return undefined;
  }
  const source = annotations as Record<string, unknown>;
  const out: Record<string, string> = {};
  const enforcement = readEnum(r, source, ENFORCEMENT_ANNOTATION, ENFORCEMENT_MODES);
  if (enforcement !== undefined) {
    if (type === 'Patch') {
      r.fail(
        fieldOf(ENFORCEMENT_ANNOTATION),
        'only applies to Reject rules (a Patch rule never refuses a request, so it has nothing to warn about or audit); remove the annotation',
      );
    } else {
      out[ENFORCEMENT_ANNOTATION] = enforcement;
    }
  }
  const policy = readEnum(r, source, FAILURE_POLICY_ANNOTATION, FAILURE_POLICIES);
  if (policy !== undefined) {
    if (policy === 'Fail' && enforcement !== undefined && enforcement !== 'Enforce') {
      r.fail(
        fieldOf(FAILURE_POLICY_ANNOTATION),
        `Fail refuses requests, which a rule with ${ENFORCEMENT_ANNOTATION}: ${enforcement} never does; use Ignore, or set the enforcement to Enforce`,
      );
    } else {
      out[FAILURE_POLICY_ANNOTATION] = policy;
    }
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function readEnum<T extends string>(
  r: FieldReader,
  annotations: Record<string, unknown>,
  key: string,
  allowed: readonly T[],
): T | undefined {
  if (!Object.prototype.hasOwnProperty.call(annotations, key)) return undefined;
  const value = annotations[key];
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) {
    return value as T;
  }
  r.fail(fieldOf(key), `must be one of ${allowed.join(', ')}, got ${quoted(value)}`);
  return undefined;
}

/** `metadata.annotations[api.kubemod.io/enforcement]` */
export function fieldOf(annotation: string): string {
  return `metadata.annotations[${annotation}]`;
}

function quoted(value: unknown): string {
  if (typeof value !== 'string') return value === null ? 'null' : typeof value;
  const shown = value.length <= MAX_QUOTED_CHARS ? value : `${value.slice(0, MAX_QUOTED_CHARS)}…`;
  return JSON.stringify(shown);
}
