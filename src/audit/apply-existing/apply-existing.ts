import type { EvaluationResult } from '../../engine/evaluate.js';
import type { JsonObject } from '../../engine/json.js';
import type { CompiledRule } from '../../engine/rule.js';
import { describeError } from '../../errors/catalog.js';
import { KubeApiError } from '../../kube/kube-client.js';
import { AccessCheckFailed, type AuthorAccess } from '../../authz/apply-gate.js';
import type { AuditApi } from '../run/audit-api.js';
import { identityOf, verdictOf } from '../run/object-verdict.js';
import { scanObjects, type Unreadable } from '../run/scan.js';
import type { ListTask } from '../run/scope-plan.js';
import type { TargetResource } from '../../kube/target-resources.js';

/** The annotation that opts a ModRule in to being applied to the objects that already exist. */
export { APPLY_TO_EXISTING_ANNOTATION } from '../../api/annotations.js';

/** Counts of one apply-to-existing job (persisted in the ModRule status between leaders). */
export interface ApplyCounts {
  /** Objects the job re-submitted and the webhook patched. */
  updated: number;
  /** Objects that could not be brought in line (reason logged per object). */
  failed: number;
  /**
   * Objects the rule would change but its author may not update: never written, and never
   * described outside the operator's log.
   */
  forbidden: number;
}

/**
 * Paces the writes of a job (rates, rollouts): `acquire` resolves when the object may be written,
 * with a function to call after the write (with the stored object, or undefined when the write
 * failed).
 */
export interface WriteLimiter {
  acquire(
    target: TargetResource,
    current: JsonObject,
    patched: JsonObject,
    signal: AbortSignal,
  ): Promise<(stored: JsonObject | undefined) => void>;
}

/** What happened to one object. */
export type ObjectOutcome =
  | { readonly kind: 'skipped' }
  | { readonly kind: 'updated' }
  | { readonly kind: 'forbidden' }
  | { readonly kind: 'failed'; readonly reason: string };

/** Raised inside a job when it must stop (leadership lost, operator stopping, rule changed). */
export class JobInterrupted extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'JobInterrupted';
  }
}

export interface ApplyJobOptions {
  readonly api: AuditApi;
  readonly rule: CompiledRule;
  readonly tasks: readonly ListTask[];
  /**
   * What the rule's author may do: collections the author may not list are not read at all, and
   * objects the author may not update are counted as forbidden and left alone.
   */
  readonly access: AuthorAccess;
  /** A collection the author may not list (it was skipped; log it, but name no object). */
  readonly onNotListable?:
    ((target: TargetResource, namespace: string | undefined) => void) | undefined;
  readonly namespaces: ReadonlyMap<string, JsonObject> | undefined;
  /** Evaluates the object as an UPDATE of itself through the webhook's evaluation. */
  readonly evaluate: (object: JsonObject, target: TargetResource) => EvaluationResult;
  /** Paces the writes (per-namespace and global rates, rollouts in flight). */
  readonly limiter: WriteLimiter;
  readonly signal: AbortSignal;
  /** Throws JobInterrupted when the job must stop (checked before every object). */
  readonly checkContinue: () => void;
  readonly pageSize: number;
  readonly yieldNow?: (() => Promise<void>) | undefined;
  /** Called after each object that was updated or failed, with the running counts. */
  readonly onOutcome: (
    object: JsonObject,
    target: TargetResource,
    outcome: ObjectOutcome,
    counts: ApplyCounts,
  ) => Promise<void> | void;
  readonly onUnreadable: (entry: Unreadable) => void;
  /** Counts carried over from a previous leader's run of the same job. */
  readonly initial: ApplyCounts;
}

/** Attempts per object when the object changes between reading and updating it (409 Conflict). */
const MAX_ATTEMPTS = 3;

function statusOf(err: unknown): number {
  return err instanceof KubeApiError ? err.statusCode : 0;
}

/**
 * Brings the existing objects a Patch rule applies to in line, by re-submitting each one through
 * admission: an UPDATE (PUT) of the object exactly as read, with its resourceVersion, which the
 * dragnet webhook patches like any other update. Nothing is written around the webhook, and an
 * object changed meanwhile is re-read (409 Conflict), never overwritten.
 *
 * An object is left alone when the rule would change nothing on it (which is also how a new
 * leader resumes an interrupted job: objects already done have an empty patch), and counted as
 * failed without being written when the update would be rejected, or when the rule would patch
 * it again after its own patch (a rule that is not idempotent would change the object on every
 * update; applying it to existing objects is refused). After the write the stored object is
 * evaluated again: if the rule still has something to change, the webhook did not patch it
 * (unreachable, or a replica that has not loaded the rule yet) and the object counts as failed.
 */
export async function runApplyJob(options: ApplyJobOptions): Promise<ApplyCounts> {
  const counts: ApplyCounts = { ...options.initial };
  const ruleKey = options.rule.key;

  const contributes = (
    object: JsonObject,
    target: TargetResource,
  ): EvaluationResult | undefined => {
    const result = options.evaluate(object, target);
    return verdictOf(result).patchingRules.includes(ruleKey) ? result : undefined;
  };

  const processObject = async (
    first: JsonObject,
    target: TargetResource,
  ): Promise<ObjectOutcome> => {
    const { namespace, name } = identityOf(first);
    let object = first;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const result = contributes(object, target);
      if (result === undefined) return { kind: 'skipped' };
      // Checked before anything else is said about the object: a forbidden one is only counted.
      if (attempt === 1 && !(await options.access.mayUpdate(target, namespace, name)))
        return { kind: 'forbidden' };
      const verdict = verdictOf(result);
      if (verdict.action === 'reject')
        return {
          kind: 'failed',
          reason: `an update would be rejected: ${verdict.rejections.join(', ')}`,
        };
      if (contributes(result.patched, target) !== undefined)
        return {
          kind: 'failed',
          reason: 'the rule is not idempotent: it would patch the object again on every update',
        };
      options.checkContinue();
      const release = await options.limiter.acquire(target, object, result.patched, options.signal);
      if (options.signal.aborted) {
        release(undefined);
        throw new JobInterrupted('stopping');
      }
      try {
        options.checkContinue();
        // Asked again, uncached, right before the write: the answer above may be minutes old
        // (the limiter waits for rollouts), and the author may have lost the right meanwhile.
        if (!(await options.access.confirmUpdate(target, namespace, name))) {
          release(undefined);
          return { kind: 'forbidden' };
        }
        options.checkContinue();
      } catch (err) {
        release(undefined);
        throw err;
      }
      let stored: JsonObject;
      try {
        stored = await options.api.update(target, object);
        release(stored);
      } catch (err) {
        release(undefined);
        const status = statusOf(err);
        if (status === 404) return { kind: 'skipped' };
        if (status !== 409 || attempt === MAX_ATTEMPTS)
          return { kind: 'failed', reason: `update failed: ${describeError(err)}` };
        try {
          object = await options.api.get(target, namespace, name);
        } catch (getErr) {
          if (statusOf(getErr) === 404) return { kind: 'skipped' };
          return { kind: 'failed', reason: `re-read failed: ${describeError(getErr)}` };
        }
        continue;
      }
      if (contributes(stored, target) !== undefined)
        return {
          kind: 'failed',
          reason:
            'the update was admitted without the patch (is the webhook reachable, and has every replica loaded the rule?)',
        };
      return { kind: 'updated' };
    }
    return { kind: 'failed', reason: 'the object kept changing while it was being updated' };
  };

  const tasks = await readableTasks(options);
  await scanObjects({
    api: options.api,
    tasks,
    namespaces: options.namespaces,
    pageSize: options.pageSize,
    concurrency: 1,
    signal: options.signal,
    yieldNow: options.yieldNow,
    onObject: async (object, target) => {
      options.checkContinue();
      let outcome: ObjectOutcome;
      try {
        outcome = await processObject(object, target);
      } catch (err) {
        if (err instanceof JobInterrupted || err instanceof AccessCheckFailed) throw err;
        outcome = { kind: 'failed', reason: describeError(err) };
      }
      if (outcome.kind === 'skipped') return;
      if (outcome.kind === 'updated') counts.updated++;
      else if (outcome.kind === 'forbidden') counts.forbidden++;
      else counts.failed++;
      await options.onOutcome(object, target, outcome, { ...counts });
    },
    onUnreadable: options.onUnreadable,
  });
  // scanObjects returns early when the signal aborts: the job did not finish.
  if (options.signal.aborted) throw new JobInterrupted('stopping');
  return counts;
}

/**
 * The collections of the plan the rule's author may list. A list across all namespaces the
 * author may not make is narrowed to the namespaces of the plan the author may list one by one.
 */
async function readableTasks(options: ApplyJobOptions): Promise<ListTask[]> {
  const tasks: ListTask[] = [];
  for (const task of options.tasks) {
    options.checkContinue();
    if (await options.access.mayList(task.target, task.namespace)) {
      tasks.push(task);
      continue;
    }
    const fallback =
      task.namespace === undefined && task.target.namespaced ? task.fallbackNamespaces : [];
    if (fallback.length === 0) options.onNotListable?.(task.target, task.namespace);
    for (const namespace of fallback) {
      if (await options.access.mayList(task.target, namespace))
        tasks.push({ target: task.target, namespace, fallbackNamespaces: [] });
      else options.onNotListable?.(task.target, namespace);
    }
  }
  return tasks;
}
