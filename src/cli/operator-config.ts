import { AUTHOR_KEY_SECRET } from '../authz/author-key-secret.js';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DEFAULT_CLUSTER_NAMESPACE } from '../engine/rule.js';
import {
  helperThreadNiceFlag,
  helperThreadNiceUsage,
  integerFlag,
  logLevelFlag,
} from './flag-values.js';
import { KubemodError } from '../errors/catalog.js';
import { LOG_LEVELS } from '../observability/logger.js';
import type { OperatorConfig } from '../controller/operator-settings.js';
import { DEFAULT_WEBHOOK_LIMITS } from '../webhook/dependencies.js';
import {
  DEFAULT_APPLY_NAMESPACE_LABEL,
  parseOptInLabel,
  parseOptInRegex,
} from '../authz/apply-opt-in.js';
import {
  DEFAULT_LOOKUP_KINDS,
  parseLookupKinds,
} from '../controller/lookup-caches/lookup-kinds.js';
import { WORK_FLAG_OPTIONS, workFlagsUsage, workLimitsFlags } from './work-flags.js';
import {
  BOUND_FLAG_OPTIONS,
  metricsBoundFlags,
  reportBoundFlags,
  boundFlagsUsage,
} from './operator-bound-flags.js';

export {
  certificateExtraDnsNames,
  certificateIpAddresses,
  type OperatorConfig,
} from '../controller/operator-settings.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The lame-duck delay on SIGTERM. Endpoint removal and kube-proxy's rule update take about a
 * second; 5 s covers a loaded control plane. Delay plus grace (10 s) stays well inside the
 * Deployment's terminationGracePeriodSeconds (30).
 */
export const DEFAULT_SHUTDOWN_DELAY_MS = 5_000;

export type OperatorArgs =
  { readonly kind: 'help' } | { readonly kind: 'config'; readonly config: OperatorConfig };

export const OPERATOR_USAGE = `Usage: kubemod-ts operator [options]

Runs the KubeMod operator: watches ModRules, Namespaces and Nodes, serves the admission
webhooks over HTTPS, and keeps its certificate and the webhook configurations' caBundle current.
Uses $KUBECONFIG (or --kubeconfig) when set, the in-cluster configuration otherwise.

Options:
  --kubeconfig <file>            kubeconfig file (default $KUBECONFIG, else in-cluster)
  --namespace <ns>               operator namespace (default $POD_NAMESPACE, else kubemod-system)
  --cluster-namespace <ns>       namespace of cluster-wide ModRules (default ${DEFAULT_CLUSTER_NAMESPACE})
  --webhook-host <addr>          address the webhook server listens on (default 0.0.0.0)
  --webhook-port <n>             webhook HTTPS port (default 9443; 0 picks a free port)
  --health-port <n>              HTTP port of /healthz, /readyz, /metrics (default 8081; 0 free port)
  --log-level <level>            ${LOG_LEVELS.join('|')} (default info, or $KUBEMOD_LOG_LEVEL)
  --enable-dryrun                also serve PUT /v1/dryrun on the webhook port (off). It is not
                                 authenticated: anyone who reaches the port (any Pod, unless a
                                 NetworkPolicy says otherwise) may run rules there and spend
                                 the webhook's time. Dry runs see only the syntheticRefs their
                                 body supplies, never the cluster's Namespaces and Nodes
  --secret-name <name>           Secret holding the webhook certificate (default kubemod-webhook-server-cert)
  --author-key-secret <name>     Secret holding the key that signs ModRule author records; created
                                 when absent (default kubemod-author-key)
  --service-name <name>          webhook Service, used for certificate SANs (default kubemod-webhook-service)
  --mutating-webhook <name>      MutatingWebhookConfiguration (default kubemod-mutating-webhook-configuration)
  --validating-webhook <name>    ValidatingWebhookConfiguration (default kubemod-validating-webhook-configuration)
  --lease-name <name>            leader-election Lease (default kubemod-operator-leader)
  --webhook-url-base <url>       write clientConfig.url=<url><path> into the webhook configurations
                                 instead of the service reference (out-of-cluster runs, tests)
  --cert-validity-seconds <n>    serving certificate lifetime (default one year)
  --reconcile-interval-ms <ms>   periodic re-check of the webhook configurations (default 10000)
  --lease-duration-ms <ms>       leader Lease duration (default 15000)
  --shutdown-delay-ms <ms>       on SIGTERM/SIGINT, report not-ready at once but keep accepting and
                                 answering admission requests this long, until the Service stops
                                 sending connections here (default 5000)
  --shutdown-grace-ms <ms>       time in-flight requests get after that delay (default 10000)
  --audit-interval-seconds <n>   the leader audits existing objects every n seconds and writes
                                 per-rule counts to ModRule status and metrics (default 0: off)
  --apply-existing-namespace-label <key>=<value>
                                 namespaces carrying this label may use apply-to-existing
                                 (default ${DEFAULT_APPLY_NAMESPACE_LABEL}); the operator also
                                 needs config/optional/apply-to-existing-rbac.yaml
  --apply-existing-namespace-regex <re>
                                 namespaces whose whole name this RE2 expression matches may use
                                 apply-to-existing too (default: none)
  --apply-existing-rate <n>      objects per second the apply-to-existing jobs of one namespace
                                 update (default 2; 0 turns the api.kubemod.io/apply-to-existing
                                 annotation off)
  --apply-existing-max-rate <n>  objects per second all apply-to-existing jobs update together
                                 (default 10)
  --apply-existing-max-rollouts <n>
                                 workloads of one namespace rolling out because of
                                 apply-to-existing at a time (default 2)
  --apply-existing-rollout-timeout-seconds <n>
                                 a rollout stops counting against that bound after n seconds
                                 (default 600; a Deployment's progressDeadlineSeconds if shorter)
  --lookup-kinds <list>          kinds cached for template lookups, comma-separated
                                 Kind[:metadata][@key=value&...] entries; "none" caches
                                 nothing (default ${DEFAULT_LOOKUP_KINDS});
                                 the operator also needs config/optional/lookups-rbac.yaml
${boundFlagsUsage(31)}${workFlagsUsage(31)}${helperThreadNiceUsage(31)}  -h, --help                     show this help
`;

/** Parses `operator` flags (argv without the command name). Throws INPUT_INVALID naming the flag. */
export function parseOperatorArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): OperatorArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: 'string' },
        namespace: { type: 'string' },
        'cluster-namespace': { type: 'string' },
        'webhook-host': { type: 'string' },
        'webhook-port': { type: 'string' },
        'health-port': { type: 'string' },
        'log-level': { type: 'string' },
        'enable-dryrun': { type: 'boolean' },
        'secret-name': { type: 'string' },
        'author-key-secret': { type: 'string' },
        'service-name': { type: 'string' },
        'mutating-webhook': { type: 'string' },
        'validating-webhook': { type: 'string' },
        'lease-name': { type: 'string' },
        'webhook-url-base': { type: 'string' },
        'cert-validity-seconds': { type: 'string' },
        'reconcile-interval-ms': { type: 'string' },
        'lease-duration-ms': { type: 'string' },
        'shutdown-grace-ms': { type: 'string' },
        'shutdown-delay-ms': { type: 'string' },
        'audit-interval-seconds': { type: 'string' },
        'apply-existing-rate': { type: 'string' },
        'apply-existing-namespace-label': { type: 'string' },
        'apply-existing-namespace-regex': { type: 'string' },
        'apply-existing-max-rate': { type: 'string' },
        'apply-existing-max-rollouts': { type: 'string' },
        'apply-existing-rollout-timeout-seconds': { type: 'string' },
        'helper-thread-nice': { type: 'string' },
        'lookup-kinds': { type: 'string' },
        ...WORK_FLAG_OPTIONS,
        ...BOUND_FLAG_OPTIONS,
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new KubemodError('INPUT_INVALID', err instanceof Error ? err.message : String(err));
  }
  if (values.help === true) return { kind: 'help' };
  const logLevel = logLevelFlag(values['log-level'], env);
  const urlBase = values['webhook-url-base'];
  if (urlBase !== undefined && !/^https:\/\/[^/]+$/.test(urlBase.replace(/\/$/, ''))) {
    throw new KubemodError(
      'INPUT_INVALID',
      `--webhook-url-base must look like https://host:port, got ${JSON.stringify(urlBase)}`,
    );
  }
  const leaseDurationMs = integerFlag(
    values['lease-duration-ms'],
    '--lease-duration-ms',
    15_000,
    1_000,
    600_000,
  );
  const kubeconfig = values.kubeconfig ?? (env.KUBECONFIG === '' ? undefined : env.KUBECONFIG);
  return {
    kind: 'config',
    config: {
      kubeconfig,
      namespace: values.namespace ?? env.POD_NAMESPACE ?? DEFAULT_CLUSTER_NAMESPACE,
      clusterNamespace: values['cluster-namespace'] ?? DEFAULT_CLUSTER_NAMESPACE,
      host: values['webhook-host'] ?? '0.0.0.0',
      webhookPort: integerFlag(values['webhook-port'], '--webhook-port', 9443, 0, 65535),
      healthPort: integerFlag(values['health-port'], '--health-port', 8081, 0, 65535),
      logLevel,
      secretName: values['secret-name'] ?? 'kubemod-webhook-server-cert',
      authorKeySecretName: values['author-key-secret'] ?? AUTHOR_KEY_SECRET,
      serviceName: values['service-name'] ?? 'kubemod-webhook-service',
      mutatingWebhookName: values['mutating-webhook'] ?? 'kubemod-mutating-webhook-configuration',
      validatingWebhookName:
        values['validating-webhook'] ?? 'kubemod-validating-webhook-configuration',
      leaseName: values['lease-name'] ?? 'kubemod-operator-leader',
      identity: env.POD_NAME ?? `${hostname()}-${randomBytes(4).toString('hex')}`,
      webhookUrlBase: urlBase?.replace(/\/$/, ''),
      certValidityMs:
        integerFlag(
          values['cert-validity-seconds'],
          '--cert-validity-seconds',
          (365 * DAY_MS) / 1000,
          60,
          (100 * 365 * DAY_MS) / 1000,
        ) * 1000,
      certRotateAt: 2 / 3,
      reconcileIntervalMs: integerFlag(
        values['reconcile-interval-ms'],
        '--reconcile-interval-ms',
        10_000,
        100,
        3_600_000,
      ),
      leaseDurationMs,
      renewDeadlineMs: Math.round((leaseDurationMs * 2) / 3),
      retryPeriodMs: Math.max(200, Math.round(leaseDurationMs / 7)),
      eventIntervalMs: 60_000,
      shutdownGraceMs: integerFlag(
        values['shutdown-grace-ms'],
        '--shutdown-grace-ms',
        10_000,
        0,
        600_000,
      ),
      shutdownDelayMs: integerFlag(
        values['shutdown-delay-ms'],
        '--shutdown-delay-ms',
        DEFAULT_SHUTDOWN_DELAY_MS,
        0,
        120_000,
      ),
      bodyLimitBytes: DEFAULT_WEBHOOK_LIMITS.bodyLimitBytes,
      deadlineMs: DEFAULT_WEBHOOK_LIMITS.deadlineMs,
      work: workLimitsFlags(values),
      dryRun: values['enable-dryrun'] === true,
      auditIntervalMs:
        integerFlag(values['audit-interval-seconds'], '--audit-interval-seconds', 0, 0, 604_800) *
        1000,
      applyExistingRate: integerFlag(
        values['apply-existing-rate'],
        '--apply-existing-rate',
        2,
        0,
        1000,
      ),
      applyExistingOptIn: {
        label: parseOptInLabel(
          values['apply-existing-namespace-label'] ?? DEFAULT_APPLY_NAMESPACE_LABEL,
        ),
        regex: parseOptInRegex(values['apply-existing-namespace-regex']),
      },
      applyExistingMaxRate: integerFlag(
        values['apply-existing-max-rate'],
        '--apply-existing-max-rate',
        10,
        1,
        10_000,
      ),
      applyExistingMaxRollouts: integerFlag(
        values['apply-existing-max-rollouts'],
        '--apply-existing-max-rollouts',
        2,
        1,
        1000,
      ),
      applyExistingRolloutTimeoutMs:
        integerFlag(
          values['apply-existing-rollout-timeout-seconds'],
          '--apply-existing-rollout-timeout-seconds',
          600,
          1,
          86_400,
        ) * 1000,
      helperThreadNice: helperThreadNiceFlag(values['helper-thread-nice']),
      lookupKinds: parseLookupKinds(values['lookup-kinds']),
      reportBounds: reportBoundFlags(values),
      ...metricsBoundFlags(values),
    },
  };
}
