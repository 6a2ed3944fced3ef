import type { JsonObject } from '../../engine/json.js';
import type { RuleStore } from '../../engine/store.js';
import type { SyntheticRefLookups, WebhookLimits } from '../../webhook/dependencies.js';
import { dryRunDiff, manifestName } from '../../webhook/dryrun/dryrun-diff.js';
import type { AuditApi } from '../run/audit-api.js';
import {
  auditObjects,
  type AuditProgress,
  type AuditRunOptions,
  type AuditRunResult,
} from '../run/audit-run.js';
import { discoverTargets } from './cluster-inputs.js';
import { evaluateAsUpdate } from '../run/object-verdict.js';
import type { Unreadable } from '../run/scan.js';
import { auditedRules, planListTasks } from '../run/scope-plan.js';
import type { WebhookRule } from '../../kube/target-resources.js';

export interface AuditSessionInput {
  readonly api: AuditApi;
  readonly store: RuleStore;
  /** syntheticRefs lookups, as the webhook has them. */
  readonly refs: SyntheticRefLookups;
  /** Namespace manifests by name, when known (scope and the ignore label). */
  readonly namespaces: ReadonlyMap<string, JsonObject> | undefined;
  readonly dragnetRules: readonly WebhookRule[];
  readonly limits: Pick<WebhookLimits, 'template' | 'work'>;
  readonly onlyNamespace?: string | undefined;
  readonly keepFindings: boolean;
  readonly pageSize: number;
  readonly concurrency: number;
  readonly clock?: (() => number) | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly yieldNow?: (() => Promise<void>) | undefined;
  readonly onProgress?: ((progress: AuditProgress) => void) | undefined;
  /** Whether an object may count for a rule (see AuditRunOptions.mayCount). */
  readonly mayCount?: AuditRunOptions['mayCount'];
  /** Told about every evaluated object (see AuditRunOptions.onEvaluated). */
  readonly onEvaluated?: AuditRunOptions['onEvaluated'];
}

export interface AuditSessionResult {
  readonly result: AuditRunResult;
  /** The rules audited (`ns/name`): those of the store that an UPDATE runs. */
  readonly rules: readonly string[];
  /** Discovery problems (the per-collection ones are in result.unreadable). */
  readonly unreadable: readonly Unreadable[];
  readonly notes: readonly string[];
}

/**
 * One audit of the live cluster against the rules of a store: discovers the resources the
 * dragnet webhook receives, plans the lists the rules' scopes need, and evaluates every object
 * as an UPDATE of itself through the webhook's own evaluation (namespace handling,
 * syntheticRefs, work limits). Discovery failing altogether throws; anything else is reported.
 */
export async function auditCluster(input: AuditSessionInput): Promise<AuditSessionResult> {
  const notes: string[] = [];
  const all = input.store.all();
  const rules = auditedRules(all);
  const skipped = all.filter((r) => !rules.includes(r)).map((r) => r.key);
  if (skipped.length > 0)
    notes.push(
      `not audited (no UPDATE in admissionOperations, so an update would not apply them): ${skipped.join(', ')}`,
    );
  if (rules.length === 0) {
    return {
      result: {
        audited: 0,
        ignored: 0,
        findings: [],
        nonConforming: 0,
        perRule: new Map(),
        failures: [],
        errors: [],
        unreadable: [],
      },
      rules: [],
      unreadable: [],
      notes: [...notes, 'no ModRules to audit'],
    };
  }
  const discovery = await discoverTargets(input.api, input.dragnetRules);
  const tasks = planListTasks({
    rules,
    targets: discovery.targets,
    namespaces: input.namespaces,
    onlyNamespace: input.onlyNamespace,
  });
  const deps = {
    store: () => input.store,
    refs: input.refs,
    limits: input.limits,
    clock: input.clock,
  };
  const result = await auditObjects({
    api: input.api,
    tasks,
    namespaces: input.namespaces,
    evaluate: evaluateAsUpdate(deps),
    diff: (before, after) =>
      dryRunDiff(before, after, { name: manifestName(before), work: input.limits.work }),
    keepFindings: input.keepFindings,
    pageSize: input.pageSize,
    concurrency: input.concurrency,
    signal: input.signal,
    yieldNow: input.yieldNow,
    onProgress: input.onProgress,
    mayCount: input.mayCount,
    onEvaluated: input.onEvaluated,
  });
  return { result, rules: rules.map((r) => r.key), unreadable: discovery.unreadable, notes };
}
