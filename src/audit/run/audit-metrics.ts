import { Counter, Gauge, type Registry } from 'prom-client';
import { OTHER_RULE_LABEL, type RuleLabels } from '../../observability/rule-labels.js';

/** The audit's Prometheus series (per-rule label values name ModRules of the store only). */
export interface AuditMetrics {
  /** The outcome of a periodic audit: non-conforming objects per rule (`ns/name`), and totals. */
  setAuditResult(
    perRule: ReadonlyMap<string, number>,
    summary: {
      readonly audited: number;
      readonly unreadable: number;
      readonly completedAtMs: number;
    },
  ): void;
  /** One object an apply-to-existing job updated, or failed to. */
  appliedToExisting(rule: string, result: 'updated' | 'failed'): void;
}

/**
 * Registers the audit series on the operator's registry. Series of rules that no longer exist
 * (`exists` is false at scrape time, or `labels` forgets them) are dropped, so the label values
 * stay bounded by the rules that exist; with `labels` (the operator's Metrics.ruleLabels) only
 * the rules it gives a place have series of their own, the others count as `rule="other"`.
 */
export function registerAuditMetrics(
  registry: Registry,
  exists: (rule: string) => boolean,
  enabled: { readonly audit: boolean; readonly apply: boolean } = { audit: true, apply: true },
  labels?: RuleLabels,
): AuditMetrics {
  let perRule: ReadonlyMap<string, number> = new Map();
  const applied = new Set<string>();
  const label = (rule: string): string => labels?.label(rule) ?? rule;
  // Only the series of the features that are on are registered (no zeros that mean "off").
  const registers = (on: boolean): Registry[] => (on ? [registry] : []);
  new Gauge({
    name: 'kubemod_audit_nonconforming_objects',
    help: 'Objects the last periodic audit found that an UPDATE would patch or reject, per ModRule.',
    labelNames: ['rule'] as const,
    registers: registers(enabled.audit),
    collect(): void {
      this.reset();
      for (const [rule, count] of perRule) if (exists(rule)) this.inc({ rule: label(rule) }, count);
    },
  });
  const audited = new Gauge({
    name: 'kubemod_audit_objects',
    help: 'Objects the last periodic audit evaluated.',
    registers: registers(enabled.audit),
  });
  const unreadable = new Gauge({
    name: 'kubemod_audit_unreadable_collections',
    help: 'Collections the last periodic audit could not read (missing RBAC, API errors).',
    registers: registers(enabled.audit),
  });
  const completed = new Gauge({
    name: 'kubemod_audit_last_completion_timestamp_seconds',
    help: 'When the last periodic audit finished (Unix time).',
    registers: registers(enabled.audit),
  });
  const appliedTotal = new Counter({
    name: 'kubemod_apply_existing_objects_total',
    help: 'Existing objects apply-to-existing jobs updated or failed to update, per ModRule.',
    labelNames: ['rule', 'result'] as const,
    registers: registers(enabled.apply),
    collect(): void {
      for (const rule of applied) {
        if (rule === OTHER_RULE_LABEL || exists(rule)) continue;
        applied.delete(rule);
        this.remove({ rule, result: 'updated' });
        this.remove({ rule, result: 'failed' });
      }
    },
  });
  labels?.onForget((rule) => {
    if (!applied.delete(rule)) return;
    appliedTotal.remove({ rule, result: 'updated' });
    appliedTotal.remove({ rule, result: 'failed' });
  });
  return {
    setAuditResult(counts, summary): void {
      perRule = new Map(counts);
      audited.set(summary.audited);
      unreadable.set(summary.unreadable);
      completed.set(summary.completedAtMs / 1000);
    },
    appliedToExisting(rule, result): void {
      const value = label(rule);
      applied.add(value);
      appliedTotal.inc({ rule: value, result });
    },
  };
}
