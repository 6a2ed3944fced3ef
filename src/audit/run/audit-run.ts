import type { EvaluationResult } from '../../engine/evaluate.js';
import type { JsonObject, JsonPatchOperation } from '../../engine/json.js';
import { describeError } from '../../errors/catalog.js';
import type { AuditApi } from './audit-api.js';
import {
  identityOf,
  verdictOf,
  withoutManagedFields,
  type ObjectVerdict,
} from './object-verdict.js';
import { scanObjects, type Unreadable } from './scan.js';
import type { ListTask } from './scope-plan.js';
import { apiVersionOf, type TargetResource } from '../../kube/target-resources.js';

/** An object an UPDATE would patch or reject. */
export interface AuditFinding {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly action: 'patch' | 'reject';
  /** Rules that would patch (where the object would change) or reject it, `ns/name`. */
  readonly rules: readonly string[];
  readonly rejections: readonly string[];
  readonly patch: readonly JsonPatchOperation[];
  /** Unified YAML diff of the object (managedFields left out); '' for rejections without a patch. */
  readonly diff: string;
}

/** A rule that failed on an object (and was skipped, as the webhook would skip it). */
export interface AuditRuleFailure {
  readonly object: string;
  readonly rule: string;
  readonly field: string;
  readonly code: string;
  readonly message: string;
}

/**
 * Per-rule counts: objects the rule would patch or reject, and objects it failed on. A Reject
 * rule in Warn or Audit mode counts the objects that violate it in `nonConforming` (an update
 * would be admitted, so they are no `reject` and no finding).
 */
export interface RuleTally {
  nonConforming: number;
  patch: number;
  reject: number;
  failures: number;
}

export interface AuditRunResult {
  /** Objects evaluated. */
  readonly audited: number;
  /** Objects skipped in namespaces labelled admission.kubemod.io/ignore=true. */
  readonly ignored: number;
  readonly findings: readonly AuditFinding[];
  /** Non-conforming objects (also counted when findings are not kept). */
  readonly nonConforming: number;
  readonly perRule: ReadonlyMap<string, RuleTally>;
  /** Rule failures, the first MAX_FAILURES of them (perRule counts them all). */
  readonly failures: readonly AuditRuleFailure[];
  /** Objects the whole evaluation failed for (over the request's own budget, …). */
  readonly errors: readonly { readonly object: string; readonly reason: string }[];
  readonly unreadable: readonly Unreadable[];
}

export interface AuditProgress {
  readonly tasksDone: number;
  readonly tasks: number;
  readonly audited: number;
  readonly nonConforming: number;
}

export interface AuditRunOptions {
  readonly api: AuditApi;
  readonly tasks: readonly ListTask[];
  readonly namespaces: ReadonlyMap<string, JsonObject> | undefined;
  /** Evaluates the object as an UPDATE of itself, through the webhook's evaluation. */
  readonly evaluate: (object: JsonObject, target: TargetResource) => EvaluationResult;
  /** Builds the diff of a finding (only called when findings are kept). */
  readonly diff: (before: JsonObject, after: JsonObject) => string;
  /** Keep each non-conforming object with its patch and diff (the CLI), or only count (the operator). */
  readonly keepFindings: boolean;
  readonly pageSize: number;
  readonly concurrency: number;
  readonly signal?: AbortSignal | undefined;
  readonly yieldNow?: (() => Promise<void>) | undefined;
  readonly onProgress?: ((progress: AuditProgress) => void) | undefined;
  /**
   * Whether an object may count for a rule (the operator: its author may list the object's
   * collection). Per-rule tallies leave out what it refuses; undefined counts everything (the CLI,
   * which runs with the user's own credentials).
   */
  readonly mayCount?:
    | ((rule: string, target: TargetResource, namespace: string | undefined) => Promise<boolean>)
    | undefined;
  /** Told about every evaluated object (the policy report collector); awaited before the next. */
  readonly onEvaluated?:
    | ((
        object: JsonObject,
        target: TargetResource,
        result: EvaluationResult,
        verdict: ObjectVerdict,
      ) => Promise<void>)
    | undefined;
}

/** Rule failures kept with their details (all are counted). */
export const MAX_FAILURES = 1000;

function objectRef(object: JsonObject): string {
  const { namespace, name } = identityOf(object);
  const kind = typeof object.kind === 'string' ? object.kind : 'object';
  return namespace === undefined ? `${kind}/${name}` : `${kind} ${namespace}/${name}`;
}

/**
 * Lists the planned collections and evaluates every object as an UPDATE of itself would be
 * evaluated by the webhook, counting per rule the objects that would be patched or rejected.
 * Reads only; never throws for what it cannot read (see `unreadable`).
 */
export async function auditObjects(options: AuditRunOptions): Promise<AuditRunResult> {
  const findings: AuditFinding[] = [];
  const perRule = new Map<string, RuleTally>();
  const failures: AuditRuleFailure[] = [];
  const errors: { object: string; reason: string }[] = [];
  const unreadable: Unreadable[] = [];
  let nonConforming = 0;
  let audited = 0;
  let tasksDone = 0;
  const tally = (rule: string): RuleTally => {
    let entry = perRule.get(rule);
    if (entry === undefined) {
      entry = { nonConforming: 0, patch: 0, reject: 0, failures: 0 };
      perRule.set(rule, entry);
    }
    return entry;
  };
  const progress = (): void => {
    options.onProgress?.({ tasksDone, tasks: options.tasks.length, audited, nonConforming });
  };

  const countable = async (
    rules: readonly string[],
    object: JsonObject,
    target: TargetResource,
  ): Promise<ReadonlySet<string>> => {
    if (options.mayCount === undefined || rules.length === 0) return new Set(rules);
    const { namespace } = identityOf(object);
    const allowed = new Set<string>();
    for (const rule of new Set(rules))
      if (await options.mayCount(rule, target, namespace)) allowed.add(rule);
    return allowed;
  };

  const onObject = async (object: JsonObject, target: TargetResource): Promise<void> => {
    audited++;
    let result: EvaluationResult;
    try {
      result = options.evaluate(object, target);
    } catch (err) {
      errors.push({ object: objectRef(object), reason: describeError(err) });
      return;
    }
    const verdict = verdictOf(result);
    await options.onEvaluated?.(object, target, result, verdict);
    const counted = await countable(
      [
        ...verdict.failures.map((f) => f.rule),
        ...verdict.patchingRules,
        ...verdict.rejectingRules,
        ...verdict.violatingRules,
      ],
      object,
      target,
    );
    for (const failure of verdict.failures) {
      if (!counted.has(failure.rule)) continue;
      tally(failure.rule).failures++;
      if (failures.length < MAX_FAILURES)
        failures.push({
          object: objectRef(object),
          rule: failure.rule,
          field: failure.field ?? 'spec',
          code: failure.code,
          message: failure.message,
        });
    }
    for (const rule of new Set(verdict.violatingRules)) {
      if (counted.has(rule)) tally(rule).nonConforming++;
    }
    if (verdict.action === 'none') return;
    nonConforming++;
    const rules = [...new Set([...verdict.rejectingRules, ...verdict.patchingRules])];
    for (const rule of verdict.patchingRules) {
      if (!counted.has(rule)) continue;
      const entry = tally(rule);
      entry.patch++;
      entry.nonConforming++;
    }
    for (const rule of new Set(verdict.rejectingRules)) {
      if (!counted.has(rule)) continue;
      const entry = tally(rule);
      entry.reject++;
      if (!verdict.patchingRules.includes(rule)) entry.nonConforming++;
    }
    if (!options.keepFindings) return;
    const { namespace, name } = identityOf(object);
    findings.push({
      apiVersion: apiVersionOf(target),
      kind: target.kind,
      namespace,
      name,
      action: verdict.action,
      rules,
      rejections: verdict.rejections,
      patch: verdict.patch,
      diff:
        verdict.patch.length === 0
          ? ''
          : options.diff(withoutManagedFields(object), withoutManagedFields(result.patched)),
    });
  };

  const counts = await scanObjects({
    api: options.api,
    tasks: options.tasks,
    namespaces: options.namespaces,
    pageSize: options.pageSize,
    concurrency: options.concurrency,
    signal: options.signal,
    yieldNow: options.yieldNow,
    onObject: async (object, target) => {
      await onObject(object, target);
      if (audited % 50 === 0) progress();
    },
    onUnreadable: (entry) => unreadable.push(entry),
    onTaskDone: () => {
      tasksDone++;
      progress();
    },
  });
  return {
    audited,
    ignored: counts.ignored,
    findings: findings.sort(compareFindings),
    nonConforming,
    perRule,
    failures,
    errors,
    unreadable,
  };
}

function compareFindings(a: AuditFinding, b: AuditFinding): number {
  const ka = [a.namespace ?? '', a.kind, a.name].join('\u0000');
  const kb = [b.namespace ?? '', b.kind, b.name].join('\u0000');
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
