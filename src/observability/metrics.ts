import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RuleLabels } from './rule-labels.js';
import { PendingCounts } from './pending-counts.js';

/**
 * Result label of a webhook request: `allowed` (unchanged), `patched`, `rejected` (403 by an
 * Enforce Reject rule), `refused` (403 only because a rule with failure policy Fail could not be
 * evaluated), `error` (allowed unchanged after an internal failure), `malformed`, `skipped`.
 */
export type RequestResult =
  'allowed' | 'patched' | 'rejected' | 'refused' | 'error' | 'malformed' | 'skipped';

/**
 * Result label of `kubemod_rule_results_total`, what one rule did to one admission request:
 * `patched`, `rejected` (Enforce), `warned` (Warn: admitted with a warning), `audited` (Audit:
 * admitted silently), `failed` (could not be evaluated, skipped: failure policy Ignore),
 * `refused` (could not be evaluated, request refused: failure policy Fail).
 */
export const RULE_RESULTS = [
  'patched',
  'rejected',
  'warned',
  'audited',
  'failed',
  'refused',
] as const;
export type RuleResult = (typeof RULE_RESULTS)[number];

export interface Metrics {
  /** The private registry (never prom-client's global default one). */
  readonly registry: Registry;
  observeRequest(webhook: string, operation: string, result: RequestResult, seconds: number): void;
  rulePatched(rule: string): void;
  ruleRejected(rule: string): void;
  ruleFailed(rule: string, code: string): void;
  /** One rule's outcome for one admission request (see RuleResult). */
  ruleResult(rule: string, result: RuleResult): void;
  /** One event-loop lag sample (see startEventLoopLagSampler). */
  observeEventLoopLag(seconds: number): void;
  /**
   * Request bodies shed by the in-flight body budget: slow ones `evicted` (their connections
   * closed) to make room, or new ones `refused` (503) when there was none.
   */
  bodiesShed(reason: 'evicted' | 'refused', count: number): void;
  /**
   * A connection closed at once: the server had its maximum of open connections in all
   * (`total`) or from that client address (`address`).
   */
  connectionDropped(reason: 'total' | 'address'): void;
  /** Where `kubemod_log_lines_dropped_total` reads its count from at scrape time. */
  setLogDropSource(source: () => number): void;
  /** Where `kubemod_rules_loaded` reads its values from at scrape time (the current store). */
  setRuleCountSource(source: () => ReadonlyMap<string, number>): void;
  /**
   * Which rules still exist (`<namespace>/<name>`): a backstop for rule sources that replace the
   * whole store (`serve`'s directory) and for counts made after a rule's deletion: at scrape time
   * the rules with series of their own that are gone are forgotten.
   */
  setRulePresence(exists: (rule: string) => boolean): void;
  /**
   * The rule left the store: its per-rule series go now, not at the next scrape (there may be
   * none: the default install has no scraper).
   */
  forgetRule(rule: string): void;
  /** Which rules have per-rule series of their own (the cap; the others are `rule="other"`). */
  readonly ruleLabels: RuleLabels;
  /** Prometheus text exposition of every metric. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** Latency buckets in seconds: the webhook answers in well under a millisecond to a few seconds. */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Event-loop lag buckets in seconds: 1 ms (healthy) to 10 s (stalled). */
const LAG_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The admission operations a label may name. The operation is read from the request body, so
 * anything else is counted as `other`: a label value taken from the request unchecked let 120
 * requests with a 1 MB operation grow the process by 460 MB and /metrics to 120 MB.
 */
const OPERATION_LABELS: ReadonlySet<string> = new Set([
  'CREATE',
  'UPDATE',
  'DELETE',
  'CONNECT',
  'unknown',
]);

/** A catalog code (`KM` and four digits), the only kind of value the `code` label takes. */
const CATALOG_CODE = /^KM\d{4}$/;

/** The `operation` label of an admission operation: itself when known, `other` otherwise. */
export function operationLabel(operation: string): string {
  return OPERATION_LABELS.has(operation) ? operation : 'other';
}

/** The `code` label of an error code: itself when it is a catalog code, `other` otherwise. */
export function codeLabel(code: string): string {
  return CATALOG_CODE.test(code) ? code : 'other';
}

export interface MetricsOptions {
  /** Rules with per-rule series of their own at most (RuleLabels; DEFAULT_MAX_RULE_SERIES). */
  readonly maxRuleSeries?: number | undefined;
}

/**
 * Creates the process metrics on a fresh Registry. Label values are bounded: webhook and result
 * are fixed sets, operation and code are mapped onto fixed sets, and rule and namespace labels
 * name ModRules of the rule store (never rules sent in a request, such as /v1/dryrun's), at most
 * `maxRuleSeries` of them (the others are counted as `rule="other"`).
 */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const ruleLabels = new RuleLabels(options.maxRuleSeries);
  // The error codes each rule has series for (to remove them when it is forgotten).
  const codesOf = new Map<string, Set<string>>();
  let ruleCounts: () => ReadonlyMap<string, number> = () => new Map();
  let ruleExists: ((rule: string) => boolean) | undefined;
  let logDrops: () => number = () => 0;
  // The counters incremented on every admission request take their increments when read.
  const requestCounts = new PendingCounts<'webhook' | 'operation' | 'result'>(
    (l) => `${l.webhook}\0${l.operation}\0${l.result}`,
  );
  const patchCounts = new PendingCounts<'rule'>((l) => l.rule);
  const rejectionCounts = new PendingCounts<'rule'>((l) => l.rule);
  const resultCounts = new PendingCounts<'rule' | 'result'>((l) => `${l.rule}\0${l.result}`);
  new Counter({
    name: 'kubemod_webhook_requests_total',
    help: 'Webhook requests by webhook, admission operation and result.',
    labelNames: ['webhook', 'operation', 'result'] as const,
    registers: [registry],
    collect(): void {
      requestCounts.flushInto(this);
    },
  });
  const latency = new Histogram({
    name: 'kubemod_webhook_request_duration_seconds',
    help: 'Time to answer a webhook request, by webhook.',
    labelNames: ['webhook'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const patches = new Counter({
    name: 'kubemod_rule_patches_total',
    help: 'Objects patched, per ModRule.',
    labelNames: ['rule'] as const,
    registers: [registry],
    collect(): void {
      patchCounts.flushInto(this);
    },
  });
  const rejections = new Counter({
    name: 'kubemod_rule_rejections_total',
    help: 'Operations rejected, per ModRule.',
    labelNames: ['rule'] as const,
    registers: [registry],
    collect(): void {
      rejectionCounts.flushInto(this);
    },
  });
  const errors = new Counter({
    name: 'kubemod_rule_errors_total',
    help: 'ModRule evaluation failures (the rule was skipped), per ModRule and error code.',
    labelNames: ['rule', 'code'] as const,
    registers: [registry],
  });
  const results = new Counter({
    name: 'kubemod_rule_results_total',
    help: 'What a ModRule did to an admission request, per ModRule and result (patched, rejected, warned, audited, failed, refused).',
    labelNames: ['rule', 'result'] as const,
    registers: [registry],
    collect(): void {
      resultCounts.flushInto(this);
    },
  });
  const lag = new Histogram({
    name: 'kubemod_event_loop_lag_seconds',
    help: 'How late the event loop ran a timer (sampled): time the process could not answer.',
    buckets: LAG_BUCKETS,
    registers: [registry],
  });
  const shed = new Counter({
    name: 'kubemod_webhook_bodies_shed_total',
    help: 'Request bodies dropped by the in-flight body budget: slow ones evicted, or new ones refused (503).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const dropped = new Counter({
    name: 'kubemod_webhook_connections_dropped_total',
    help: 'Connections closed at once because the webhook server had its maximum of open connections, in all or from one client address.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  ruleLabels.onForget((rule) => {
    const ofRule = (labels: { rule: string }): boolean => labels.rule === rule;
    patchCounts.drop(ofRule);
    rejectionCounts.drop(ofRule);
    resultCounts.drop(ofRule);
    patches.remove({ rule });
    rejections.remove({ rule });
    for (const result of RULE_RESULTS) results.remove({ rule, result });
    for (const code of codesOf.get(rule) ?? []) errors.remove({ rule, code });
    codesOf.delete(rule);
  });
  new Gauge({
    name: 'kubemod_rules_loaded',
    help: 'ModRules currently loaded, per namespace.',
    labelNames: ['namespace'] as const,
    registers: [registry],
    collect(): void {
      this.reset();
      for (const [namespace, count] of ruleCounts()) this.set({ namespace }, count);
    },
  });
  new Counter({
    name: 'kubemod_log_lines_dropped_total',
    help: 'Log lines dropped because the log buffer was full (stdout not read fast enough).',
    registers: [registry],
    collect(): void {
      this.reset();
      this.inc(logDrops());
    },
  });
  return {
    registry,
    contentType: registry.contentType,
    observeRequest(webhook, operation, result, seconds): void {
      requestCounts.inc({ webhook, operation: operationLabel(operation), result });
      latency.observe({ webhook }, seconds);
    },
    ruleLabels,
    rulePatched: (rule) => {
      patchCounts.inc({ rule: ruleLabels.label(rule) });
    },
    ruleRejected: (rule) => {
      rejectionCounts.inc({ rule: ruleLabels.label(rule) });
    },
    ruleFailed: (rule, code) => {
      const label = ruleLabels.label(rule);
      const codes = codesOf.get(label) ?? new Set<string>();
      codesOf.set(label, codes);
      codes.add(codeLabel(code));
      errors.inc({ rule: label, code: codeLabel(code) });
    },
    ruleResult: (rule, result) => {
      resultCounts.inc({ rule: ruleLabels.label(rule), result });
    },
    forgetRule: (rule) => {
      ruleLabels.forget(rule);
    },
    observeEventLoopLag(seconds): void {
      lag.observe(seconds);
    },
    bodiesShed(reason, count): void {
      shed.inc({ reason }, count);
    },
    connectionDropped(reason): void {
      dropped.inc({ reason });
    },
    setLogDropSource(source): void {
      logDrops = source;
    },
    setRuleCountSource(source): void {
      ruleCounts = source;
    },
    setRulePresence(exists): void {
      ruleExists = exists;
    },
    render: () => {
      // Bounded by the cap: only the rules with series of their own are looked up.
      if (ruleExists !== undefined)
        for (const rule of ruleLabels.rules()) if (!ruleExists(rule)) ruleLabels.forget(rule);
      return registry.metrics();
    },
  };
}
