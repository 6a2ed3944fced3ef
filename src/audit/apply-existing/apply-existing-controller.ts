import type { EvaluationResult } from '../../engine/evaluate.js';
import type { JsonObject } from '../../engine/json.js';
import type { RuleStore } from '../../engine/store.js';
import { describeError } from '../../errors/catalog.js';
import type { Logger } from '../../observability/logger.js';
import type { ApplyGate } from '../../authz/apply-gate.js';
import { createApplyJobRunner, type JobResult } from './apply-job-runner.js';
import { createApplyPacing, type ApplyPacingSettings } from './apply-pacing.js';
import { incarnationOf, jobDue } from './apply-status.js';
import type { AuditApi, RuleReporter } from '../run/audit-api.js';
import type { AuditMetrics } from '../run/audit-metrics.js';
import { createCachedTargets } from './cached-targets.js';
import { DeferredKeys } from './deferred-keys.js';
import { FairQueue } from './fair-queue.js';
import { identityOf } from '../run/object-verdict.js';
import type { TargetResource } from '../../kube/target-resources.js';

export { applyStatusOf, jobDue, type ApplyStatus } from './apply-status.js';

/** How the jobs share the leader (docs/audit.md, "Scheduling: fair and gentle"). */
export interface ApplySchedulingSettings extends ApplyPacingSettings {
  /**
   * A job becomes eligible this long after this replica first saw its rule's current generation,
   * so that every replica has loaded it by the time objects are re-submitted. Waited per rule,
   * all at once: it delays a job, never the jobs after it.
   */
  readonly settleMs: number;
  /** Namespaces whose jobs run at the same time at most (one job per namespace at a time). */
  readonly maxActiveNamespaces: number;
  /** A job that ran this long gives its turn up when another namespace waits for one. */
  readonly turnMs: number;
  /** The discovery sweep is reused for this long. */
  readonly discoveryTtlMs: number;
  /** Disabled jobs and jobs that failed are looked at again after this long. */
  readonly retryMs: number;
}

export const DEFAULT_APPLY_SCHEDULING: ApplySchedulingSettings = {
  ratePerSecond: 2,
  maxRatePerSecond: 10,
  maxRollouts: 2,
  rolloutTimeoutMs: 600_000,
  rolloutPollMs: 5_000,
  settleMs: 3_000,
  maxActiveNamespaces: 8,
  turnMs: 30_000,
  discoveryTtlMs: 300_000,
  retryMs: 60_000,
};

export interface ApplyExistingControllerOptions {
  readonly api: AuditApi;
  readonly reporter: RuleReporter;
  readonly store: () => RuleStore;
  /** ModRule objects as the informer holds them, by `ns/name`. */
  readonly ruleObject: (key: string) => JsonObject | undefined;
  readonly ruleObjects: () => readonly JsonObject[];
  readonly namespaces: () => ReadonlyMap<string, JsonObject>;
  /** The resources the dragnet webhook receives (a discovery sweep; cached by the controller). */
  readonly targets: () => Promise<readonly TargetResource[]>;
  readonly evaluate: (object: JsonObject, target: TargetResource) => EvaluationResult;
  /** The trust checks: whether a rule may use the feature, and what its author may do. */
  readonly gate: ApplyGate;
  readonly isLeader: () => boolean;
  readonly scheduling: ApplySchedulingSettings;
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
  /** Interrupts the running jobs (their progress is written while still leading) and stops. */
  stop(): Promise<void>;
  /** The rules whose jobs run now, by namespace. */
  readonly running: ReadonlyMap<string, string>;
  /** Jobs queued (eligible, waiting for their namespace's turn). */
  readonly queued: number;
}

function namespaceOfKey(key: string): string {
  return key.slice(0, key.indexOf('/'));
}

/**
 * The leader's apply-to-existing jobs, scheduled fairly between namespaces: one FIFO per rule
 * namespace, served round-robin; one job per namespace at a time and at most
 * `maxActiveNamespaces` namespaces at once, a job giving its turn up after `turnMs` when another
 * namespace waits; writes paced per namespace, under a shared ceiling, with a bounded number of
 * rollouts per namespace (apply-pacing.ts). Each job is eligible `settleMs` after its rule was
 * first seen, waited concurrently. One discovery sweep serves every job for `discoveryTtlMs`.
 */
export function createApplyExistingController(
  options: ApplyExistingControllerOptions,
): ApplyExistingController {
  const settings = options.scheduling;
  const lifetime = new AbortController();
  const queue = new FairQueue();
  /** Namespace → the job running for it and when its turn started. */
  const active = new Map<string, { readonly key: string; readonly since: number }>();
  /** Rule → the incarnation first seen and when (the settle runs from there). */
  const firstSeen = new Map<string, { readonly incarnation: string; readonly at: number }>();
  /** Jobs this replica finished or found disabled, `ns/name` → incarnation (the informer may lag behind our status write). */
  const settled = new Map<string, string>();
  const jobs = new Set<Promise<void>>();
  const pacing = createApplyPacing({
    ...settings,
    api: options.api,
    now: options.now,
    delay: options.delay,
  });
  const targets = createCachedTargets({
    load: options.targets,
    ttlMs: settings.discoveryTtlMs,
    now: options.now,
  });
  const runner = createApplyJobRunner({
    ...options,
    targets,
    persistEvery: options.persistEvery ?? 10,
    signal: lifetime.signal,
  });

  /** Disabled rules waiting for their re-check: looked at again from scratch when it comes. */
  const recheck = new Set<string>();
  /** Rules whose settle or retry is pending (one timer for all); not queued meanwhile. */
  const waiting = new DeferredKeys(options, lifetime.signal, (key) => {
    if (recheck.delete(key)) settled.delete(key);
    consider(key);
  });
  const later = (key: string, ms: number, forget: boolean): void => {
    if (forget) recheck.add(key);
    waiting.add(key, options.now() + ms);
  };

  const busy = (namespace: string): boolean => active.has(namespace);

  const finish = (namespace: string, key: string, result: JobResult): void => {
    const obj = options.ruleObject(key);
    const incarnation = obj === undefined ? undefined : incarnationOf(obj);
    if (result === 'finished' && incarnation !== undefined) {
      settled.set(key, incarnation);
      firstSeen.delete(key);
      // Bounded: a replica that has finished more jobs than this forgets the oldest ones (their
      // status says Completed once the informer catches up).
      if (settled.size > 10_000) settled.delete(settled.keys().next().value ?? key);
    } else if (result === 'disabled' && incarnation !== undefined) {
      settled.set(key, incarnation);
      later(key, settings.retryMs, true);
    } else if (result === 'yielded') {
      queue.addFront(namespace, key);
    } else if (result === 'failed') {
      later(key, settings.retryMs, false);
    }
  };

  const start = (namespace: string, key: string): void => {
    const since = options.now();
    active.set(namespace, { key, since });
    const job = runner
      .run(key, {
        limiter: pacing.forNamespace(namespace),
        admit: (signal) => pacing.admitJob(namespace, signal),
        shouldYield: () =>
          options.now() - since >= settings.turnMs &&
          queue.hasWaiting((ns) => ns === namespace || busy(ns)),
      })
      .then(
        (result) => {
          finish(namespace, key, result);
        },
        (err: unknown) => {
          options.logger.error(
            { rule: key, err: describeError(err) },
            'apply-to-existing job crashed',
          );
          later(key, settings.retryMs, false);
        },
      )
      .finally(() => {
        active.delete(namespace);
        jobs.delete(job);
        pump();
      });
    jobs.add(job);
  };

  const pump = (): void => {
    while (
      active.size < settings.maxActiveNamespaces &&
      options.isLeader() &&
      !lifetime.signal.aborted
    ) {
      const next = queue.next(busy);
      if (next === undefined) return;
      // Queued again while it ran (our own status writes arrive as updates): still due?
      const obj = options.ruleObject(next.key);
      if (obj === undefined || !jobDue(obj) || settled.get(next.key) === incarnationOf(obj))
        continue;
      start(next.namespace, next.key);
    }
  };

  const consider = (key: string): void => {
    if (lifetime.signal.aborted || !options.isLeader()) return;
    const obj = options.ruleObject(key);
    if (obj === undefined || !jobDue(obj)) {
      firstSeen.delete(key);
      return;
    }
    const incarnation = incarnationOf(obj);
    if (recheck.has(key) && settled.get(key) !== incarnation) {
      // Edited or re-created while its Disabled predecessor waits for the re-check: a new rule
      // (perhaps by a new author) is looked at now, not after the predecessor's retry delay.
      waiting.delete(key);
      recheck.delete(key);
      settled.delete(key);
    }
    if (settled.get(key) === incarnation || waiting.has(key)) return;
    const now = options.now();
    let seen = firstSeen.get(key);
    if (seen?.incarnation !== incarnation) {
      seen = { incarnation, at: now };
      firstSeen.set(key, seen);
    }
    const eligibleAt = seen.at + settings.settleMs;
    if (now < eligibleAt) {
      later(key, eligibleAt - now, false);
      return;
    }
    queue.add(namespaceOfKey(key), key);
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
      await Promise.all([...jobs]);
    },
    get running(): ReadonlyMap<string, string> {
      return new Map([...active].map(([ns, job]) => [ns, job.key]));
    },
    get queued(): number {
      return queue.size;
    },
  };
}
