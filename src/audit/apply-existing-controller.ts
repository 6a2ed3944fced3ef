import type { EvaluationResult } from '../engine/evaluate.js';
import { isJsonObject, type JsonObject } from '../engine/json.js';
import type { CompiledRule } from '../engine/rule.js';
import type { RuleStore } from '../engine/store.js';
import { describeError } from '../errors/catalog.js';
import { isStatus } from '../controller/kube-client.js';
import type { Logger } from '../observability/logger.js';
import type { AuditApi, RuleReporter } from './audit-api.js';
import type { AuditMetrics } from './audit-metrics.js';
import type { ApplyGate } from './apply-gate.js';
import {
  APPLY_TO_EXISTING_ANNOTATION,
  JobInterrupted,
  runApplyJob,
  type ApplyCounts,
} from './apply-existing.js';
import { identityOf } from './object-verdict.js';
import { planListTasks } from './scope-plan.js';
import type { TargetResource } from './target-resources.js';

/** `status.applyToExisting` of a ModRule: the job for one generation of the rule. */
export interface ApplyStatus {
  readonly observedGeneration: number;
  readonly phase: 'Running' | 'Completed' | 'Ignored' | 'Disabled';
  readonly updated: number;
  readonly failed: number;
  readonly forbidden: number;
  readonly startTime?: string;
  readonly completionTime?: string;
  readonly message?: string;
}

export interface ApplyExistingControllerOptions {
  readonly api: AuditApi;
  readonly reporter: RuleReporter;
  readonly store: () => RuleStore;
  /** ModRule objects as the informer holds them, by `ns/name`. */
  readonly ruleObject: (key: string) => JsonObject | undefined;
  readonly ruleObjects: () => readonly JsonObject[];
  readonly namespaces: () => ReadonlyMap<string, JsonObject>;
  /** The resources the dragnet webhook receives (discovery). */
  readonly targets: () => Promise<readonly TargetResource[]>;
  readonly evaluate: (object: JsonObject, target: TargetResource) => EvaluationResult;
  readonly isLeader: () => boolean;
  /** The trust checks: whether a rule may run, and what its author may do (apply-gate.ts). */
  readonly gate: ApplyGate;
  readonly ratePerSecond: number;
  /** Wait after a rule is loaded before its job starts, so every replica has loaded it too. */
  readonly settleMs: number;
  readonly pageSize: number;
  readonly metrics: AuditMetrics;
  readonly logger: Logger;
  /** Wall clock, ms since epoch. */
  readonly now: () => number;
  readonly delay: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly yieldNow?: (() => Promise<void>) | undefined;
  /** Progress is written to the status after this many updated or failed objects (and at the end). */
  readonly persistEvery?: number;
}

export interface ApplyExistingController {
  /** Looks at one ModRule (after it changed): queues its job when one is due. */
  consider(key: string): void;
  /** Looks at every ModRule (when this replica starts leading). */
  resync(): void;
  /** Interrupts the running job (its progress is written while still leading) and stops. */
  stop(): Promise<void>;
  /** The rule whose job runs now, if any. */
  readonly running: string | undefined;
}

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The job status a ModRule object carries, if any. */
export function applyStatusOf(obj: JsonObject): Partial<ApplyStatus> | undefined {
  const status = obj.status;
  if (!isJsonObject(status) || !isJsonObject(status.applyToExisting)) return undefined;
  const s = status.applyToExisting;
  return {
    ...(typeof s.observedGeneration === 'number'
      ? { observedGeneration: s.observedGeneration }
      : {}),
    ...(s.phase === 'Running' || s.phase === 'Completed' || s.phase === 'Ignored'
      ? { phase: s.phase }
      : {}),
    ...(typeof s.updated === 'number' ? { updated: s.updated } : {}),
    ...(typeof s.failed === 'number' ? { failed: s.failed } : {}),
    ...(typeof s.forbidden === 'number' ? { forbidden: s.forbidden } : {}),
    ...(typeof s.startTime === 'string' ? { startTime: s.startTime } : {}),
  };
}

function annotationOf(obj: JsonObject): string | undefined {
  const metadata = obj.metadata;
  if (!isJsonObject(metadata) || !isJsonObject(metadata.annotations)) return undefined;
  const value = metadata.annotations[APPLY_TO_EXISTING_ANNOTATION];
  return typeof value === 'string' ? value : undefined;
}

function generationOf(obj: JsonObject): number {
  const metadata = obj.metadata;
  return isJsonObject(metadata) && typeof metadata.generation === 'number'
    ? metadata.generation
    : 0;
}

/**
 * Whether a ModRule object wants a job: annotated `api.kubemod.io/apply-to-existing: "true"`,
 * and its status shows no finished job for its current generation.
 */
export function jobDue(obj: JsonObject): boolean {
  if (annotationOf(obj) !== 'true') return false;
  const status = applyStatusOf(obj);
  return !(
    status?.observedGeneration === generationOf(obj) &&
    (status.phase === 'Completed' || status.phase === 'Ignored')
  );
}

/**
 * The leader's apply-to-existing jobs, one at a time in arrival order: for each annotated Patch
 * rule that is loaded, runApplyJob over the rule's scope, with progress in the rule's
 * `status.applyToExisting` (so a new leader resumes the counts, and a finished generation is not
 * run again) and an Event with the counts at the end. Reject rules are audit-only: their job is
 * marked Ignored.
 */
export function createApplyExistingController(
  options: ApplyExistingControllerOptions,
): ApplyExistingController {
  const lifetime = new AbortController();
  const queue = new Set<string>();
  /** Jobs this replica finished, `ns/name` → `uid@generation` (the informer may lag behind our status write). */
  const finished = new Map<string, string>();
  let running: string | undefined;
  let worker: Promise<void> | undefined;
  const persistEvery = options.persistEvery ?? 10;

  const write = async (
    rule: { namespace: string; name: string },
    status: ApplyStatus,
  ): Promise<void> => {
    try {
      await options.reporter.patchStatus(rule.namespace, rule.name, {
        applyToExisting: { ...status },
      });
    } catch (err) {
      if (isStatus(err, 404)) return;
      options.logger.warn(
        { rule: `${rule.namespace}/${rule.name}`, err: describeError(err) },
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

  const runJob = async (key: string): Promise<void> => {
    await options.delay(options.settleMs, lifetime.signal);
    const obj = options.ruleObject(key);
    const { namespace, name, uid } =
      obj === undefined ? { namespace: '', name: '', uid: undefined } : identityOf(obj);
    const rule = options.store().get(namespace ?? '', name);
    if (
      obj === undefined ||
      rule === undefined ||
      !jobDue(obj) ||
      !options.isLeader() ||
      lifetime.signal.aborted
    )
      return;
    const generation = generationOf(obj);
    const incarnation = `${uid ?? ''}@${String(generation)}`;
    if (finished.get(key) === incarnation) return;
    const ignored =
      rule.type !== 'Patch'
        ? 'Reject rules are audit-only: apply-to-existing does nothing for them'
        : !rule.operations.has('UPDATE')
          ? 'admissionOperations does not include UPDATE: re-submitting objects would not apply the rule'
          : undefined;
    if (ignored !== undefined) {
      const message = ignored;
      await write(rule, {
        observedGeneration: generation,
        phase: 'Ignored',
        updated: 0,
        failed: 0,
        forbidden: 0,
        message,
      });
      await event(rule, uid, 'Normal', 'ApplyToExistingIgnored', message);
      finished.set(key, incarnation);
      return;
    }
    const permission = await options.gate.enabled(rule, obj);
    if (!permission.allowed) {
      await write(rule, {
        observedGeneration: generation,
        phase: 'Disabled',
        updated: 0,
        failed: 0,
        forbidden: 0,
        message: permission.reason,
      });
      await event(rule, uid, 'Warning', 'ApplyToExistingDisabled', permission.reason);
      finished.set(key, incarnation);
      return;
    }
    const prior = applyStatusOf(obj);
    const resume = prior?.observedGeneration === generation && prior.phase === 'Running';
    const counts: ApplyCounts = {
      updated: resume ? (prior.updated ?? 0) : 0,
      failed: resume ? (prior.failed ?? 0) : 0,
      forbidden: resume ? (prior.forbidden ?? 0) : 0,
    };
    const startTime =
      resume && prior.startTime !== undefined ? prior.startTime : isoSeconds(options.now());
    const progress = (c: ApplyCounts): ApplyStatus => ({
      observedGeneration: generation,
      phase: 'Running',
      updated: c.updated,
      failed: c.failed,
      forbidden: c.forbidden,
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
        targets: await options.targets(),
        namespaces: options.namespaces(),
      });
      const done = await runApplyJob({
        api: options.api,
        rule,
        tasks,
        access: options.gate.accessFor(obj),
        onNotListable: (target, ns) => {
          notListable++;
          options.logger.info(
            { rule: key, resource: target.resource, namespace: ns },
            "apply-to-existing: the rule's author may not list this collection; skipped",
          );
        },
        namespaces: options.namespaces(),
        evaluate: options.evaluate,
        ratePerSecond: options.ratePerSecond,
        now: options.now,
        delay: options.delay,
        signal: lifetime.signal,
        pageSize: options.pageSize,
        yieldNow: options.yieldNow,
        initial: counts,
        checkContinue: () => {
          if (lifetime.signal.aborted) throw new JobInterrupted('the operator is stopping');
          if (!options.isLeader()) throw new JobInterrupted('no longer the leader');
          if (options.store().get(rule.namespace, rule.name) !== rule)
            throw new JobInterrupted('the rule changed or was deleted');
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
          } else {
            options.metrics.appliedToExisting(key, 'updated');
            options.logger.info({ rule: key, object: ref }, 'apply-to-existing: object updated');
          }
          if (++sincePersist >= persistEvery && options.isLeader()) {
            sincePersist = 0;
            await write(rule, progress(c));
          }
        },
        onUnreadable: (u) => {
          options.logger.warn(
            { rule: key, resource: u.resource, namespace: u.namespace, reason: u.reason },
            'apply-to-existing: cannot list objects',
          );
        },
      });
      const finishedStatus: ApplyStatus = {
        ...progress(done),
        phase: 'Completed',
        completionTime: isoSeconds(options.now()),
      };
      await write(rule, finishedStatus);
      finished.set(key, incarnation);
      if (finished.size > 10_000) finished.clear();
      const message = `Applied to existing objects: ${String(done.updated)} updated, ${String(done.failed)} failed, ${String(done.forbidden)} forbidden to the rule's author.${notListable > 0 ? ` ${String(notListable)} collections not readable by the author were skipped.` : ''}`;
      await event(
        rule,
        uid,
        done.failed === 0 ? 'Normal' : 'Warning',
        'AppliedToExisting',
        message,
      );
      options.logger.info({ rule: key, ...done }, 'apply-to-existing job completed');
    } catch (err) {
      // Interrupted (or discovery failed): keep the counts for whoever resumes, while still leading.
      if (options.isLeader()) await write(rule, progress(latest));
      if (err instanceof JobInterrupted) {
        options.logger.info(
          { rule: key, reason: err.message, ...latest },
          'apply-to-existing job interrupted',
        );
        return;
      }
      options.logger.warn(
        { rule: key, err: describeError(err) },
        'apply-to-existing job failed; retrying later',
      );
      void options.delay(30_000, lifetime.signal).then(() => {
        consider(key);
      });
    }
  };

  const pump = (): void => {
    if (worker !== undefined) return;
    worker = (async (): Promise<void> => {
      while (queue.size > 0 && options.isLeader() && !lifetime.signal.aborted) {
        const [key] = queue;
        if (key === undefined) break;
        queue.delete(key);
        running = key;
        try {
          await runJob(key);
        } catch (err) {
          options.logger.error(
            { rule: key, err: describeError(err) },
            'apply-to-existing job crashed',
          );
        } finally {
          running = undefined;
        }
      }
      worker = undefined;
    })();
  };

  const consider = (key: string): void => {
    if (lifetime.signal.aborted || !options.isLeader()) return;
    const obj = options.ruleObject(key);
    if (obj === undefined || !jobDue(obj)) return;
    if (finished.get(key) === `${identityOf(obj).uid ?? ''}@${String(generationOf(obj))}`) return;
    queue.add(key);
    pump();
  };

  return {
    consider,
    resync(): void {
      for (const obj of options.ruleObjects()) {
        const { namespace, name } = identityOf(obj);
        consider(`${namespace ?? ''}/${name}`);
      }
    },
    async stop(): Promise<void> {
      lifetime.abort();
      queue.clear();
      await worker;
    },
    get running(): string | undefined {
      return running;
    },
  };
}
