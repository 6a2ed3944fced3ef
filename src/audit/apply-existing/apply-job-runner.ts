import type { EvaluationResult } from '../../engine/evaluate.js';
import type { JsonObject } from '../../engine/json.js';
import type { CompiledRule } from '../../engine/rule.js';
import type { RuleStore } from '../../engine/store.js';
import { describeError } from '../../errors/catalog.js';
import { isStatus } from '../../kube/kube-client.js';
import type { Logger } from '../../observability/logger.js';
import type { ApplyGate } from '../../authz/apply-gate.js';
import {
  JobInterrupted,
  runApplyJob,
  type ApplyCounts,
  type WriteLimiter,
} from './apply-existing.js';
import {
  applyStatusOf,
  generationOf,
  isoSeconds,
  revisionOf,
  type ApplyStatus,
} from './apply-status.js';
import type { AuditApi, RuleReporter } from '../run/audit-api.js';
import type { AuditMetrics } from '../run/audit-metrics.js';
import type { CachedTargets } from './cached-targets.js';
import { identityOf } from '../run/object-verdict.js';
import { prefilteredEvaluate } from '../run/rule-prefilter.js';
import { planListTasks } from '../run/scope-plan.js';
import type { TargetResource } from '../../kube/target-resources.js';

export interface ApplyJobRunnerOptions {
  readonly api: AuditApi;
  readonly reporter: RuleReporter;
  readonly store: () => RuleStore;
  readonly ruleObject: (key: string) => JsonObject | undefined;
  readonly namespaces: () => ReadonlyMap<string, JsonObject>;
  readonly targets: CachedTargets;
  readonly evaluate: (object: JsonObject, target: TargetResource) => EvaluationResult;
  readonly gate: ApplyGate;
  readonly isLeader: () => boolean;
  readonly pageSize: number;
  readonly metrics: AuditMetrics;
  readonly logger: Logger;
  readonly now: () => number;
  readonly yieldNow?: (() => Promise<void>) | undefined;
  readonly persistEvery: number;
  /** Aborts when the controller stops. */
  readonly signal: AbortSignal;
}

/** What one turn of a job came to. */
export type JobResult =
  /** Completed or Ignored: finished for this generation. */
  | 'finished'
  /** The trust checks refused it (status Disabled); checked again later. */
  | 'disabled'
  /** Nothing to do (no longer due, not loaded, not leading). */
  | 'skipped'
  /** Stopped (operator stopping, leadership lost, rule changed); progress written. */
  | 'interrupted'
  /** Gave its turn to another namespace; progress written, to be resumed. */
  | 'yielded'
  /** Discovery or the trust checks failed; to be retried later. */
  | 'failed';

/** One turn of a job: its namespace's write limiter and whether it should give up its turn. */
export interface JobTurn {
  /** Paces the start of the job (its status writes and trust checks are API calls too). */
  readonly admit: (signal: AbortSignal) => Promise<void>;
  readonly limiter: WriteLimiter;
  readonly shouldYield: () => boolean;
}

class TurnYielded extends JobInterrupted {
  constructor() {
    super('yielding its turn to another namespace');
  }
}

const ZERO: ApplyCounts = { updated: 0, forbidden: 0, failed: 0 };

function countsMessage(c: ApplyCounts): string {
  return `${String(c.updated)} updated, ${String(c.forbidden)} forbidden, ${String(c.failed)} failed`;
}

/**
 * Runs the turn of one apply-to-existing job: the trust checks (status Disabled when refused),
 * Ignored for rules the feature does nothing for, then runApplyJob over the rule's scope with
 * progress in `status.applyToExisting` (a new leader, or the next turn, resumes the counts) and
 * an Event with the counts at the end.
 */
export function createApplyJobRunner(options: ApplyJobRunnerOptions): {
  run(key: string, turn: JobTurn): Promise<JobResult>;
} {
  const write = async (rule: CompiledRule, status: ApplyStatus): Promise<void> => {
    try {
      await options.reporter.patchStatus(rule.namespace, rule.name, {
        applyToExisting: { ...status },
      });
    } catch (err) {
      if (isStatus(err, 404)) return;
      options.logger.warn(
        { rule: rule.key, err: describeError(err) },
        'could not write apply-to-existing progress to the ModRule status',
      );
    }
  };

  const event = async (
    rule: CompiledRule,
    uid: string | undefined,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): Promise<void> => {
    try {
      await options.reporter.event(
        { namespace: rule.namespace, name: rule.name, uid },
        { type, reason, message },
      );
    } catch (err) {
      options.logger.warn({ rule: rule.key, err: describeError(err) }, 'could not record an Event');
    }
  };

  /** Status and Event for a job that is not run; the same message for the same generation is not repeated. */
  const notRun = async (
    rule: CompiledRule,
    obj: JsonObject,
    phase: 'Ignored' | 'Disabled',
    message: string,
  ): Promise<void> => {
    const generation = generationOf(obj);
    const prior = applyStatusOf(obj);
    if (
      prior?.observedGeneration === generation &&
      prior.phase === phase &&
      prior.message === message
    )
      return;
    await write(rule, { observedGeneration: generation, phase, ...ZERO, message });
    const reason = phase === 'Ignored' ? 'ApplyToExistingIgnored' : 'ApplyToExistingDisabled';
    await event(
      rule,
      identityOf(obj).uid,
      phase === 'Ignored' ? 'Normal' : 'Warning',
      reason,
      message,
    );
  };

  // A function, so that the check after an await is not narrowed away by the one before it.
  const stopping = (): boolean => options.signal.aborted;

  const run = async (key: string, turn: JobTurn): Promise<JobResult> => {
    const obj = options.ruleObject(key);
    if (obj === undefined || !options.isLeader() || options.signal.aborted) return 'skipped';
    const { namespace, name, uid } = identityOf(obj);
    const rule = options.store().get(namespace ?? '', name);
    if (rule === undefined) return 'skipped';
    const generation = generationOf(obj);
    const revision = revisionOf(obj);
    await turn.admit(options.signal);
    if (stopping()) return 'interrupted';

    let permission;
    try {
      permission = await options.gate.enabled(rule, obj);
    } catch (err) {
      options.logger.warn(
        { rule: key, err: describeError(err) },
        'apply-to-existing: could not check whether the job is allowed; retrying later',
      );
      return 'failed';
    }
    if (!permission.allowed) {
      await notRun(rule, obj, 'Disabled', permission.reason);
      return 'disabled';
    }
    const ignored =
      rule.type !== 'Patch'
        ? 'Reject rules are audit-only: apply-to-existing does nothing for them'
        : !rule.operations.has('UPDATE')
          ? 'admissionOperations does not include UPDATE: re-submitting objects would not apply the rule'
          : undefined;
    if (ignored !== undefined) {
      await notRun(rule, obj, 'Ignored', ignored);
      return 'finished';
    }

    const prior = applyStatusOf(obj);
    const resume = prior?.observedGeneration === generation && prior.phase === 'Running';
    const counts: ApplyCounts = {
      updated: resume ? (prior.updated ?? 0) : 0,
      forbidden: resume ? (prior.forbidden ?? 0) : 0,
      failed: resume ? (prior.failed ?? 0) : 0,
    };
    const startTime =
      resume && prior.startTime !== undefined ? prior.startTime : isoSeconds(options.now());
    const progress = (c: ApplyCounts): ApplyStatus => ({
      observedGeneration: generation,
      phase: 'Running',
      ...c,
      startTime,
    });
    await write(rule, progress(counts));
    options.logger.info(
      { rule: key, generation, resume, ...counts },
      'apply-to-existing job started',
    );
    let latest = counts;
    let sincePersist = 0;
    let notListable = 0;
    try {
      const tasks = planListTasks({
        rules: [rule],
        targets: await options.targets.get(),
        namespaces: options.namespaces(),
      });
      const done = await runApplyJob({
        api: options.api,
        rule,
        tasks,
        namespaces: options.namespaces(),
        evaluate: prefilteredEvaluate(rule, options.store, options.evaluate),
        access: options.gate.accessFor(obj),
        onNotListable: (target, ns) => {
          notListable++;
          // Named only in the admin's log: nothing of the collection is read or described.
          options.logger.info(
            { rule: key, resource: target.resource, namespace: ns },
            "apply-to-existing: the rule's author may not list this collection; skipped",
          );
        },
        limiter: turn.limiter,
        signal: options.signal,
        pageSize: options.pageSize,
        yieldNow: options.yieldNow,
        initial: counts,
        checkContinue: () => {
          if (options.signal.aborted) throw new JobInterrupted('the operator is stopping');
          if (!options.isLeader()) throw new JobInterrupted('no longer the leader');
          if (options.store().get(rule.namespace, rule.name) !== rule)
            throw new JobInterrupted('the rule changed or was deleted');
          const current = options.ruleObject(key);
          if (current === undefined || revisionOf(current) !== revision)
            throw new JobInterrupted('the rule object changed (its author record or annotations)');
          if (turn.shouldYield()) throw new TurnYielded();
        },
        onOutcome: async (object, target, outcome, c) => {
          latest = c;
          const ref = { kind: target.kind, ...identityOf(object) };
          if (outcome.kind === 'forbidden') {
            // Named only in the admin's log: the rule's author may not update the object.
            options.logger.info(
              { rule: key, object: ref },
              "apply-to-existing: the rule's author may not update the object; left alone",
            );
          } else if (outcome.kind === 'failed') {
            options.metrics.appliedToExisting(key, 'failed');
            options.logger.warn(
              { rule: key, object: ref, reason: outcome.reason },
              'apply-to-existing: object not updated',
            );
          } else if (outcome.kind === 'updated') {
            options.metrics.appliedToExisting(key, 'updated');
            options.logger.info({ rule: key, object: ref }, 'apply-to-existing: object updated');
          }
          if (++sincePersist >= options.persistEvery && options.isLeader()) {
            sincePersist = 0;
            await write(rule, progress(c));
          }
        },
        onUnreadable: (u) => {
          // A resource discovery listed that is gone: the next job sweeps discovery again.
          if (u.status === 404) options.targets.invalidate();
          options.logger.warn(
            { rule: key, resource: u.resource, namespace: u.namespace, reason: u.reason },
            'apply-to-existing: cannot list objects',
          );
        },
      });
      await write(rule, {
        ...progress(done),
        phase: 'Completed',
        completionTime: isoSeconds(options.now()),
      });
      await event(
        rule,
        uid,
        done.failed === 0 && done.forbidden === 0 ? 'Normal' : 'Warning',
        'AppliedToExisting',
        `Applied to existing objects: ${countsMessage(done)}.${
          // The author's own permissions, never which objects: tells the author why less was done.
          notListable > 0
            ? ` ${String(notListable)} collections not readable by the author were skipped.`
            : ''
        }`,
      );
      options.logger.info({ rule: key, ...done }, 'apply-to-existing job completed');
      return 'finished';
    } catch (err) {
      // Interrupted (or discovery failed): keep the counts for whoever resumes, while still leading.
      if (options.isLeader()) await write(rule, progress(latest));
      if (err instanceof JobInterrupted) {
        options.logger.info(
          { rule: key, reason: err.message, ...latest },
          'apply-to-existing job interrupted',
        );
        return err instanceof TurnYielded ? 'yielded' : 'interrupted';
      }
      options.logger.warn(
        { rule: key, err: describeError(err) },
        'apply-to-existing job failed; retrying later',
      );
      return 'failed';
    }
  };

  return { run };
}
