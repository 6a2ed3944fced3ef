import type { Informer } from '../../kube/informer.js';
import type { KubeClient } from '../../kube/kube-client.js';
import type { JsonObject } from '../../engine/json.js';
import type { RuleStore } from '../../engine/store.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SyntheticRefLookups, WebhookLimits } from '../../webhook/dependencies.js';
import {
  createApplyExistingController,
  DEFAULT_APPLY_SCHEDULING,
} from '../apply-existing/apply-existing-controller.js';
import { kubeApplyGate } from '../../authz/apply-gate-kube.js';
import type { ApplyOptIn } from '../../authz/apply-opt-in.js';
import { authorOf } from '../../authz/author-record.js';
import type { AuthorSigner } from '../../authz/author-signature.js';
import { registerAuditMetrics } from '../run/audit-metrics.js';
import { auditCluster } from './audit-session.js';
import { createCachedTargets } from '../apply-existing/cached-targets.js';
import { discoverTargets } from './cluster-inputs.js';
import { kubeAuditApi, kubeRuleReporter } from './kube-audit-api.js';
import { evaluateAsUpdate, identityOf } from '../run/object-verdict.js';
import { createPeriodicAudit } from './periodic-audit.js';
import type { CompiledRule } from '../../engine/rule.js';
import { createReportCollector, type ReportCollector } from '../../reports/report-collector.js';
import { publishReports } from '../../reports/report-publisher.js';
import type { ReportBounds } from '../../reports/report-quota.js';
import {
  DEFAULT_DRAGNET_RULES,
  dragnetRulesOf,
  type TargetResource,
  type WebhookRule,
} from '../../kube/target-resources.js';

export interface OperatorAuditSettings {
  /** Periodic audit interval; 0 turns the periodic audit off. */
  readonly auditIntervalMs: number;
  /** Objects per second one namespace's apply-to-existing jobs update; 0 turns apply-to-existing off. */
  readonly applyExistingRate: number;
  /** Objects per second all apply-to-existing jobs together update at most. */
  readonly applyExistingMaxRate: number;
  /** Workloads of one namespace rolling out because of apply-to-existing at a time at most. */
  readonly applyExistingMaxRollouts: number;
  /** A rollout stops counting against that bound after this long. */
  readonly applyExistingRolloutTimeoutMs: number;
  /** Wait after a rule is first seen before its job may start (every replica loads it meanwhile). */
  readonly applyExistingSettleMs?: number;
  /** The namespaces whose rules may use apply-to-existing (the admin's label or regex). */
  readonly applyOptIn: ApplyOptIn;
  /** The bounds of the policy reports (DEFAULT_REPORT_BOUNDS when absent). */
  readonly reportBounds?: ReportBounds | undefined;
}

export interface OperatorAuditOptions extends OperatorAuditSettings {
  /** Checks the signature of each rule's author record (the operator's key). */
  readonly authorSigner: AuthorSigner;
  readonly client: KubeClient;
  readonly store: RuleStore;
  readonly modRules: Informer;
  readonly namespaces: Informer;
  /** The operator's MutatingWebhookConfiguration (for the dragnet's resource list), when known. */
  readonly mutatingConfiguration: () => JsonObject | undefined;
  readonly refs: SyntheticRefLookups;
  readonly limits: Pick<WebhookLimits, 'template' | 'work'>;
  readonly isLeader: () => boolean;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly now: () => number;
  readonly delay: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface OperatorAudit {
  /** Call when this replica starts leading. */
  onStartedLeading(): void;
  /** Stops both loops; a running job writes its progress first. Call before releasing the Lease. */
  stop(): Promise<void>;
}

const yieldNow = (): Promise<void> =>
  new Promise((resolve) => {
    setImmediate(resolve);
  });

/**
 * The operator's side of the audit: the leader's periodic audit (ModRule status and gauges) and
 * apply-to-existing jobs, both off unless configured. Reads from the operator's informers
 * (ModRules, Namespaces) and store, so it judges objects with exactly the webhook's rules.
 */
export function startOperatorAudit(options: OperatorAuditOptions): OperatorAudit {
  const api = kubeAuditApi(options.client);
  const reporter = kubeRuleReporter(options.client, options.now);
  const metrics = registerAuditMetrics(
    options.metrics.registry,
    (rule) => {
      const slash = rule.indexOf('/');
      return options.store.get(rule.slice(0, slash), rule.slice(slash + 1)) !== undefined;
    },
    { audit: options.auditIntervalMs > 0, apply: options.applyExistingRate > 0 },
    options.metrics.ruleLabels,
  );
  const namespaceMap = (): Map<string, JsonObject> =>
    new Map(options.namespaces.list().map((ns) => [identityOf(ns).name, ns]));
  const dragnetRules = (): readonly WebhookRule[] => {
    const config = options.mutatingConfiguration();
    return (config === undefined ? undefined : dragnetRulesOf(config)) ?? DEFAULT_DRAGNET_RULES;
  };
  const deps = { store: () => options.store, refs: options.refs, limits: options.limits };
  const targets = async (): Promise<readonly TargetResource[]> =>
    (await discoverTargets(api, dragnetRules())).targets;
  // The gate checks the operator's own permission before every job: from a cached sweep, as the
  // jobs themselves list (a sweep per job would undo the scheduler's discovery cache).
  const gateTargets = createCachedTargets({
    load: targets,
    ttlMs: DEFAULT_APPLY_SCHEDULING.discoveryTtlMs,
    now: options.now,
  });
  // The trust checks of both loops: what each rule's author may list and update, asked of the
  // API server at a bounded rate.
  const lifetime = new AbortController();
  const gate = kubeApplyGate({
    client: options.client,
    optIn: options.applyOptIn,
    namespaces: namespaceMap,
    targets: () => gateTargets.get(),
    signer: options.authorSigner,
    now: options.now,
    delay: options.delay,
    signal: lifetime.signal,
  });

  const authorUnknown = (rule: CompiledRule): string | undefined => {
    const obj = options.modRules.get(rule.key);
    const author = obj === undefined ? undefined : authorOf(obj, options.authorSigner);
    return author?.known === true ? undefined : (author?.reason ?? 'the rule is gone');
  };
  // The policy reports of the run in progress: a rule reports only objects its author may list,
  // and a rule without a recorded author reports nothing (docs/policy-reports.md).
  let reports: ReportCollector | undefined;

  const periodic =
    options.auditIntervalMs > 0
      ? createPeriodicAudit({
          intervalMs: options.auditIntervalMs,
          isLeader: options.isLeader,
          store: () => options.store,
          reporter,
          metrics,
          logger: options.logger,
          now: options.now,
          delay: options.delay,
          uncountable: authorUnknown,
          publishReports: async () => {
            if (reports === undefined) return;
            await publishReports(reports.collected(), {
              client: options.client,
              logger: options.logger,
            });
            reports = undefined;
          },
          audit: (signal) => {
            const collector = createReportCollector({
              store: options.store,
              bounds: options.reportBounds,
              mayReport: (rule, target, namespace) => {
                const obj = options.modRules.get(rule.key);
                return obj === undefined || authorUnknown(rule) !== undefined
                  ? Promise.resolve(false)
                  : gate.accessFor(obj).mayList(target, namespace);
              },
            });
            reports = collector;
            return auditCluster({
              api,
              store: options.store,
              refs: options.refs,
              namespaces: namespaceMap(),
              dragnetRules: dragnetRules(),
              limits: options.limits,
              keepFindings: false,
              pageSize: 250,
              concurrency: 2,
              signal,
              yieldNow,
              // A rule counts only objects its author may list (docs/audit.md).
              mayCount: (rule, target, namespace) => {
                const obj = options.modRules.get(rule);
                return obj === undefined
                  ? Promise.resolve(false)
                  : gate.accessFor(obj).mayList(target, namespace);
              },
              onEvaluated: (object, target, result, verdict) =>
                collector.observe(object, target, result, verdict),
            });
          },
        })
      : undefined;

  const apply =
    options.applyExistingRate > 0
      ? createApplyExistingController({
          api,
          reporter,
          store: () => options.store,
          ruleObject: (key) => options.modRules.get(key),
          ruleObjects: () => options.modRules.list(),
          namespaces: namespaceMap,
          targets,
          gate,
          evaluate: evaluateAsUpdate(deps),
          isLeader: options.isLeader,
          scheduling: {
            ...DEFAULT_APPLY_SCHEDULING,
            ratePerSecond: options.applyExistingRate,
            maxRatePerSecond: options.applyExistingMaxRate,
            maxRollouts: options.applyExistingMaxRollouts,
            rolloutTimeoutMs: options.applyExistingRolloutTimeoutMs,
            settleMs: options.applyExistingSettleMs ?? DEFAULT_APPLY_SCHEDULING.settleMs,
          },
          pageSize: 50,
          metrics,
          logger: options.logger,
          now: options.now,
          delay: options.delay,
          yieldNow,
        })
      : undefined;
  if (apply !== undefined) {
    const consider = (obj: JsonObject): void => {
      const { namespace, name } = identityOf(obj);
      apply.consider(`${namespace ?? ''}/${name}`);
    };
    options.modRules.on('add', consider);
    options.modRules.on('update', consider);
  }
  periodic?.start();

  return {
    onStartedLeading(): void {
      apply?.resync();
    },
    async stop(): Promise<void> {
      lifetime.abort();
      await Promise.all([apply?.stop(), periodic?.stop()]);
    },
  };
}
