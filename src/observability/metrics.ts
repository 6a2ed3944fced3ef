import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Result label of a webhook request. */
export type RequestResult = 'allowed' | 'patched' | 'rejected' | 'error' | 'malformed' | 'skipped';

export interface Metrics {
  /** The private registry (never prom-client's global default one). */
  readonly registry: Registry;
  observeRequest(webhook: string, operation: string, result: RequestResult, seconds: number): void;
  rulePatched(rule: string): void;
  ruleRejected(rule: string): void;
  ruleFailed(rule: string, code: string): void;
  /** Where `kubemod_rules_loaded` reads its values from at scrape time (the current store). */
  setRuleCountSource(source: () => ReadonlyMap<string, number>): void;
  /** Prometheus text exposition of every metric. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** Latency buckets in seconds: the webhook answers in well under a millisecond to a few seconds. */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Creates the process metrics on a fresh Registry. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  let ruleCounts: () => ReadonlyMap<string, number> = () => new Map();
  const requests = new Counter({
    name: 'kubemod_webhook_requests_total',
    help: 'Webhook requests by webhook, admission operation and result.',
    labelNames: ['webhook', 'operation', 'result'] as const,
    registers: [registry],
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
  });
  const rejections = new Counter({
    name: 'kubemod_rule_rejections_total',
    help: 'Operations rejected, per ModRule.',
    labelNames: ['rule'] as const,
    registers: [registry],
  });
  const errors = new Counter({
    name: 'kubemod_rule_errors_total',
    help: 'ModRule evaluation failures (the rule was skipped), per ModRule and error code.',
    labelNames: ['rule', 'code'] as const,
    registers: [registry],
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
  return {
    registry,
    contentType: registry.contentType,
    observeRequest(webhook, operation, result, seconds): void {
      requests.inc({ webhook, operation, result });
      latency.observe({ webhook }, seconds);
    },
    rulePatched: (rule) => {
      patches.inc({ rule });
    },
    ruleRejected: (rule) => {
      rejections.inc({ rule });
    },
    ruleFailed: (rule, code) => {
      errors.inc({ rule, code });
    },
    setRuleCountSource(source): void {
      ruleCounts = source;
    },
    render: () => registry.metrics(),
  };
}
