import type { CompiledRule } from '../../engine/rule.js';
import type { RuleStore } from '../../engine/store.js';
import { describeError } from '../../errors/catalog.js';
import { isStatus } from '../../kube/kube-client.js';
import type { Logger } from '../../observability/logger.js';
import type { RuleReporter } from '../run/audit-api.js';
import type { AuditMetrics } from '../run/audit-metrics.js';
import type { AuditSessionResult } from './audit-session.js';
import { mapBounded } from '../run/bounded.js';
import { auditedRules } from '../run/scope-plan.js';

export interface PeriodicAuditOptions {
  readonly intervalMs: number;
  readonly isLeader: () => boolean;
  /** One read-only audit of the cluster against the current rules. */
  readonly audit: (signal: AbortSignal) => Promise<AuditSessionResult>;
  readonly store: () => RuleStore;
  readonly reporter: RuleReporter;
  readonly metrics: AuditMetrics;
  readonly logger: Logger;
  /** Wall clock, ms since epoch. */
  readonly now: () => number;
  readonly delay: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * Why a rule gets no count whatever the audit found (its author is not recorded), or undefined.
   * Its objects are counted only for authors who may list them (the audit's mayCount).
   */
  readonly uncountable?: ((rule: CompiledRule) => string | undefined) | undefined;
  /**
   * Writes the run's policy reports (after the statuses), for runs that completed while leading.
   * Must not throw (it logs its own failures).
   */
  readonly publishReports?: ((session: AuditSessionResult) => Promise<void>) | undefined;
  /** Status writes in flight at once. */
  readonly statusConcurrency?: number;
}

export interface PeriodicAudit {
  start(): void;
  /** Stops the loop; resolves once a run in progress has ended. */
  stop(): Promise<void>;
  /** Completed runs (tests, logs). */
  readonly runs: number;
}

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The leader's periodic audit: soon after it starts leading, then every interval, it audits the
 * cluster read-only and publishes per rule how many objects an UPDATE would patch or reject, in
 * the ModRule status (`nonConforming`, `lastAuditTime`) and as Prometheus gauges. Followers do
 * nothing. A failed run is logged and retried at the next interval.
 */
export function createPeriodicAudit(options: PeriodicAuditOptions): PeriodicAudit {
  const lifetime = new AbortController();
  let loop: Promise<void> | undefined;
  let runs = 0;
  let lastRunAt: number | undefined;
  const tick = Math.min(options.intervalMs, 5_000);

  const publish = async (session: AuditSessionResult, finishedAt: number): Promise<void> => {
    // The rules this run audited that still exist (a rule added meanwhile waits for the next run).
    const audited = new Set(session.rules);
    const rules = auditedRules(options.store().all()).filter((rule) => audited.has(rule.key));
    // A rule that may match a kind the audit could not (fully) list gets no count: a partial
    // count would claim conformance that was not checked. Its nonConforming is removed.
    const unreadableKinds = new Set(
      session.result.unreadable.flatMap((u) => (u.kind === undefined ? [] : [u.kind])),
    );
    const complete = (rule: CompiledRule): boolean =>
      unreadableKinds.size === 0 ||
      (rule.kinds !== undefined && !rule.kinds.some((kind) => unreadableKinds.has(kind)));
    const incomplete = rules.filter((rule) => !complete(rule)).map((rule) => rule.key);
    // A rule without a recorded author gets no count: nobody's rights bound what it may reveal.
    const authorless = rules.filter((rule) => options.uncountable?.(rule) !== undefined);
    const counts = new Map(
      rules
        .filter((rule) => complete(rule) && !authorless.includes(rule))
        .map((rule) => [rule.key, session.result.perRule.get(rule.key)?.nonConforming ?? 0]),
    );
    const firstAuthorless = authorless[0];
    if (firstAuthorless !== undefined)
      options.logger.warn(
        {
          rules: authorless.slice(0, 50).map((rule) => rule.key),
          count: authorless.length,
          reason: options.uncountable?.(firstAuthorless),
        },
        'periodic audit: no count for rules without a recorded author',
      );
    if (incomplete.length > 0)
      options.logger.warn(
        { rules: incomplete.slice(0, 50), count: incomplete.length },
        'periodic audit: no count for rules whose resources could not all be read',
      );
    options.metrics.setAuditResult(counts, {
      audited: session.result.audited,
      unreadable: session.unreadable.length + session.result.unreadable.length,
      completedAtMs: finishedAt,
    });
    const lastAuditTime = isoSeconds(finishedAt);
    await mapBounded(rules, options.statusConcurrency ?? 8, async (rule) => {
      if (!options.isLeader() || lifetime.signal.aborted) return;
      try {
        await options.reporter.patchStatus(rule.namespace, rule.name, {
          nonConforming: counts.get(rule.key) ?? null,
          lastAuditTime,
        });
      } catch (err) {
        if (isStatus(err, 404)) return;
        options.logger.warn(
          { rule: rule.key, err: describeError(err) },
          'could not write the audit result to the ModRule status',
        );
      }
    });
  };

  const runOnce = async (): Promise<void> => {
    const started = options.now();
    const session = await options.audit(lifetime.signal);
    if (lifetime.signal.aborted || !options.isLeader()) return;
    const finishedAt = options.now();
    await publish(session, finishedAt);
    if (options.publishReports !== undefined && options.isLeader())
      await options.publishReports(session);
    runs++;
    const unreadable = [...session.unreadable, ...session.result.unreadable];
    options.logger.info(
      {
        audited: session.result.audited,
        nonConforming: session.result.nonConforming,
        unreadable: unreadable.map(
          (u) =>
            `${u.resource}${u.namespace === undefined ? '' : ` in ${u.namespace}`}: ${u.reason}`,
        ),
        ms: finishedAt - started,
      },
      'periodic audit finished',
    );
  };

  const run = async (): Promise<void> => {
    const signal = lifetime.signal;
    while (!signal.aborted) {
      const now = options.now();
      if (
        options.isLeader() &&
        (lastRunAt === undefined || now - lastRunAt >= options.intervalMs)
      ) {
        lastRunAt = now;
        try {
          await runOnce();
        } catch (err) {
          options.logger.warn(
            { err: describeError(err) },
            'periodic audit failed; retrying at the next interval',
          );
        }
      } else if (!options.isLeader()) {
        // A replica that leads again later audits at once.
        lastRunAt = undefined;
      }
      await options.delay(tick, signal);
    }
  };

  return {
    start(): void {
      loop ??= run();
    },
    async stop(): Promise<void> {
      lifetime.abort();
      await loop;
    },
    get runs(): number {
      return runs;
    },
  };
}
