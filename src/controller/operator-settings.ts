import type { ApplyOptIn } from '../authz/apply-opt-in.js';
import { isIP } from 'node:net';
import type { WorkLimits } from '../engine/work-limits.js';
import type { LogLevel } from '../observability/logger.js';
import type { LookupKind } from './lookup-caches/lookup-kinds.js';
import type { ReportBounds } from '../reports/report-quota.js';

/** Everything `kubemod-ts operator` is configured with, read once from flags and environment. */
export interface OperatorConfig {
  /** Path of a kubeconfig file; undefined means in-cluster configuration. */
  readonly kubeconfig: string | undefined;
  /** The operator's own namespace (Secret, Lease, Service). */
  readonly namespace: string;
  /** Namespace of cluster-wide ModRules. */
  readonly clusterNamespace: string;
  readonly host: string;
  readonly webhookPort: number;
  /** Plain-HTTP port for /healthz, /readyz and /metrics (0 picks a free port; -1 disables). */
  readonly healthPort: number;
  readonly logLevel: LogLevel;
  readonly secretName: string;
  /** The Secret holding the key that signs author records (never the certificate's Secret). */
  readonly authorKeySecretName: string;
  readonly serviceName: string;
  readonly mutatingWebhookName: string;
  readonly validatingWebhookName: string;
  readonly leaseName: string;
  /** Replica identity in the leader Lease. */
  readonly identity: string;
  /** When set, webhook configurations get `url: <base><path>` instead of the service reference. */
  readonly webhookUrlBase: string | undefined;
  readonly certValidityMs: number;
  /** Fraction of the certificate lifetime after which it is rotated. */
  readonly certRotateAt: number;
  readonly reconcileIntervalMs: number;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly eventIntervalMs: number;
  readonly shutdownGraceMs: number;
  /**
   * On SIGTERM: how long the replica reports not-ready yet keeps accepting and answering
   * admission requests before its webhook listener closes (the lame-duck phase, issue 36).
   */
  readonly shutdownDelayMs: number;
  readonly bodyLimitBytes: number;
  readonly deadlineMs: number;
  /** Work budget of one evaluation (rule/namespace/request units and milliseconds). */
  readonly work: WorkLimits;
  /** Serve `PUT /v1/dryrun` on the webhook port too (off by default). */
  readonly dryRun: boolean;
  /** The leader's periodic audit of existing objects, every this many ms; 0 is off (default). */
  readonly auditIntervalMs: number;
  /** Objects per second one namespace's apply-to-existing jobs update; 0 turns apply-to-existing off. */
  readonly applyExistingRate: number;
  /** Namespaces whose rules may use apply-to-existing (--apply-existing-namespace-label/-regex). */
  readonly applyExistingOptIn: ApplyOptIn;
  /** Objects per second all apply-to-existing jobs together update at most. */
  readonly applyExistingMaxRate: number;
  /** Workloads of one namespace rolling out because of apply-to-existing at a time at most. */
  readonly applyExistingMaxRollouts: number;
  /** A rollout stops counting against applyExistingMaxRollouts after this long (ms). */
  readonly applyExistingRolloutTimeoutMs: number;
  /** Nice value of the helper threads (--helper-thread-nice; 0 leaves them alone). */
  readonly helperThreadNice: number;
  /** The kinds cached for lookups (--lookup-kinds; docs/lookups-operator.md). */
  readonly lookupKinds: readonly LookupKind[];
  /** The bounds of the periodic audit's policy reports (--report-max-*). */
  readonly reportBounds: ReportBounds;
  /** Rules with per-rule metric series of their own (--metrics-max-rules). */
  readonly metricsMaxRules: number;
  /** How long a rendered /metrics page is served again, ms (--metrics-cache-ms; 0: never). */
  readonly metricsCacheMs: number;
}

/** Extra certificate IP SANs: the listen address when it is a specific IP (e.g. 127.0.0.1). */
export function certificateIpAddresses(config: OperatorConfig): string[] {
  const ips = new Set<string>();
  if (isIP(config.host) !== 0 && config.host !== '0.0.0.0' && config.host !== '::')
    ips.add(config.host);
  if (config.webhookUrlBase !== undefined) {
    const host = new URL(config.webhookUrlBase).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0) ips.add(host);
  }
  return [...ips];
}

/** Extra certificate DNS SANs: localhost when serving on loopback. */
export function certificateExtraDnsNames(config: OperatorConfig): string[] {
  const loopback = ['127.0.0.1', '::1', 'localhost'].includes(config.host);
  const urlHost =
    config.webhookUrlBase === undefined ? undefined : new URL(config.webhookUrlBase).hostname;
  const names = new Set<string>();
  if (loopback) names.add('localhost');
  if (urlHost !== undefined && isIP(urlHost.replace(/^\[|\]$/g, '')) === 0) names.add(urlHost);
  return [...names];
}
