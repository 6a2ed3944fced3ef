import type { EnforcementMode } from '../api/annotations.js';
import type { EvaluationResult } from '../engine/evaluate.js';
import type { CompiledRule } from '../engine/rule.js';
import { ruleOfRejection, type ObjectVerdict } from '../audit/run/object-verdict.js';

/** The result values of both report APIs that kubemod-ts writes (`skip` is never written). */
export type ResultKind = 'pass' | 'fail' | 'warn' | 'error';

/** The object a result is about (a report result's `resources[0]`). */
export interface ReportSubject {
  readonly apiVersion: string;
  readonly kind: string;
  /** Undefined for cluster-scoped objects: their results go to the cluster report. */
  readonly namespace: string | undefined;
  readonly name: string;
  readonly uid: string | undefined;
}

/** One object × rule: what an UPDATE of the object as it is now would meet from the rule. */
export interface ReportResult {
  readonly subject: ReportSubject;
  /**
   * The namespace whose report holds the result: the object's, for a rule of that namespace.
   * Undefined for the cluster report, which holds the results of cluster-scoped objects and every
   * result of a cluster-wide rule (an admin's findings are not for whoever may read the
   * namespace's reports).
   */
  readonly reportNamespace: string | undefined;
  /** `<namespace>/<name>` of the ModRule. */
  readonly policy: string;
  /** The ModRule's name. */
  readonly rule: string;
  readonly result: ResultKind;
  readonly message: string;
  /** String values only, as both APIs require. */
  readonly properties: Readonly<Record<string, string>>;
}

/** Report messages are cut to this many characters (a report must stay well under etcd's limit). */
export const MAX_MESSAGE_LENGTH = 512;

function bounded(message: string): string {
  return message.length <= MAX_MESSAGE_LENGTH
    ? message
    : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

/** The message of a rejection text `ns/name: "message"` (KubeMod's format), or undefined. */
function rejectionMessage(text: string): string | undefined {
  const colon = text.indexOf(': ');
  if (colon === -1) return undefined;
  const quoted = text.slice(colon + 2);
  try {
    const parsed: unknown = JSON.parse(quoted);
    if (typeof parsed === 'string') return parsed;
  } catch {
    // Go's quoting differs from JSON's for a few characters: show it as it is.
  }
  return quoted;
}

/**
 * The texts of an evaluation's matching Reject rules: `rejections`, and, where the engine sorts
 * them by enforcement mode, `warnings` (Warn) and `audited` (Audit). KubeMod's format,
 * `<ns>/<name>: "<message>"` or `<ns>/<name>`.
 */
export interface RejectTexts {
  readonly rejections: readonly string[];
  readonly warnings?: readonly string[] | undefined;
  readonly audited?: readonly string[] | undefined;
}

/** Each matching Reject rule's text, by `ns/name` (the first text of a rule wins). */
function rejectTextsByRule(evaluation: RejectTexts): Map<string, string> {
  const out = new Map<string, string>();
  for (const text of [
    ...evaluation.rejections,
    ...(evaluation.warnings ?? []),
    ...(evaluation.audited ?? []),
  ]) {
    const rule = ruleOfRejection(text);
    if (!out.has(rule)) out.set(rule, text);
  }
  return out;
}

/**
 * The results of one evaluated object, one per rule that applies to it (the candidates an UPDATE
 * of it runs, which the caller has already narrowed to the rules it may report on):
 *
 * - a rule that failed on the object: `error` (code, field and reason);
 * - a Reject rule that would refuse the update: `fail`, or `warn` when the rule is annotated
 *   `api.kubemod.io/enforcement: Warn` (the rejection message is the result's message);
 * - a Patch rule that would change the object: `fail` ("would be patched"), with the number of
 *   its operations that write where the object would change;
 * - otherwise `pass`.
 */
export function resultsForObject(
  subject: ReportSubject,
  rules: readonly CompiledRule[],
  evaluation: Pick<EvaluationResult, 'applied'> & RejectTexts,
  verdict: Pick<ObjectVerdict, 'failures' | 'patchingRules' | 'patch'>,
  enforcement: (rule: CompiledRule) => EnforcementMode,
): ReportResult[] {
  const failures = new Map(verdict.failures.map((f) => [f.rule, f]));
  const rejections = rejectTextsByRule(evaluation);
  const patching = new Set(verdict.patchingRules);
  const changedPaths = new Set(verdict.patch.map((op) => op.path));
  const out: ReportResult[] = [];
  for (const rule of rules) {
    const base = {
      subject,
      reportNamespace: rule.scope.kind === 'cluster' ? undefined : subject.namespace,
      policy: rule.key,
      rule: rule.name,
    };
    const failure = failures.get(rule.key);
    if (failure !== undefined) {
      out.push({
        ...base,
        result: 'error',
        message: bounded(`${failure.code}: ${failure.message}`),
        properties: {
          ruleType: rule.type,
          errorCode: failure.code,
          ...(failure.field === undefined ? {} : { field: failure.field }),
        },
      });
      continue;
    }
    if (rule.type === 'Reject') {
      const mode = enforcement(rule);
      const rejection = rejections.get(rule.key);
      if (rejection === undefined) {
        out.push({
          ...base,
          result: 'pass',
          message: 'an update would not be rejected',
          properties: { ruleType: rule.type, enforcement: mode },
        });
        continue;
      }
      out.push({
        ...base,
        result: mode === 'Warn' ? 'warn' : 'fail',
        message: bounded(rejectionMessage(rejection) ?? 'an update would be rejected'),
        properties: { ruleType: rule.type, enforcement: mode },
      });
      continue;
    }
    if (!patching.has(rule.key)) {
      out.push({
        ...base,
        result: 'pass',
        message: 'an update would not change the object',
        properties: { ruleType: rule.type },
      });
      continue;
    }
    const applied = evaluation.applied.find((a) => a.rule === rule.key);
    const operations = applied?.operations.length ?? 0;
    const paths = [...new Set(applied?.operations.map((op) => op.path) ?? [])].filter((p) =>
      [...changedPaths].some((c) => c === p || c.startsWith(`${p}/`) || p.startsWith(`${c}/`)),
    );
    out.push({
      ...base,
      result: 'fail',
      message: bounded(
        `an update would patch the object (${String(operations)} operation(s)${paths.length === 0 ? '' : ` at ${paths.join(', ')}`})`,
      ),
      properties: { ruleType: rule.type, patchOperations: String(operations) },
    });
  }
  return out;
}
