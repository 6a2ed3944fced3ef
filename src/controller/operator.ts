import { MODRULE_GROUP, MODRULE_PLURAL, MODRULE_VERSION } from '../api/index.js';
import {
  certificateExtraDnsNames,
  certificateIpAddresses,
  type OperatorConfig,
} from './operator-settings.js';
import { RuleStore } from '../engine/store.js';
import { describeError } from '../errors/catalog.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import {
  CertManager,
  parseCertificateSecret,
  serviceDnsNames,
  type ServingCertificate,
} from '../tls/cert-manager.js';
import { WebhookCaInjector } from '../tls/webhook-ca-injector.js';
import { startWebhookServer, type StartedWebhookServer } from '../webhook/server.js';
import type { HelperThreadPriority } from '../webhook/http/thread-priority.js';
import { startHealthServer, type HealthServer } from './health-server.js';
import {
  collectionListWatch,
  createInformer,
  withoutManagedFields,
  type Informer,
  type KubeObject,
} from '../kube/informer.js';
import type { KubeClient } from '../kube/kube-client.js';
import { LeaderElector } from './leader-election.js';
import { bindModRuleInformer, retainedModRule } from './modrule-sync.js';
import { cachingCompilers } from '../engine/compilers.js';
import { createNodeRefBinder, informerRefs } from './node-refs.js';
import { RuleEventRecorder } from './rule-events.js';
import { StatusWriter } from './status-writer.js';
import { startOperatorAudit } from '../audit/cluster/operator-audit.js';
import { ensureAuthorKey } from '../authz/author-key-secret.js';
import { authorSigner } from '../authz/author-signature.js';
import { registerOperatorMetrics } from './operator-metrics.js';
import { createOperatorLookups } from './lookup-caches/operator-lookups.js';
import { createOperatorExternalData } from './external-data-sync.js';
import { authorOf } from '../authz/author-record.js';

export interface OperatorRuntime {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Wall clock, ms since epoch. */
  readonly now: () => number;
  readonly delay: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Lowers the helper threads again when the webhook starts one (the dry-run worker). */
  readonly helperThreads?: HelperThreadPriority;
}

export interface RunningOperator {
  readonly webhookUrl: string;
  readonly healthUrl: string | undefined;
  readonly store: RuleStore;
  ready(): boolean;
  isLeader(): boolean;
  /** Resolves once every informer has delivered its first full list. */
  waitForReady(): Promise<void>;
  /** ModRule status writes queued or in flight (the leader's backlog). */
  pendingStatusWrites(): number;
  /**
   * Graceful: readiness off at once, the webhook keeps answering for the shutdown delay (lame
   * duck), leader Lease released, in-flight admissions finish, informers stop.
   */
  stop(): Promise<void>;
}

/** Starts every part of the operator; resolves once the webhook server listens. */
export async function startOperator(
  config: OperatorConfig,
  rt: OperatorRuntime,
): Promise<RunningOperator> {
  const { client, logger, metrics } = rt;
  // A rule's per-rule metric series go with it (issue 37: not at the next scrape, if any).
  const store = new RuleStore({
    clusterNamespace: config.clusterNamespace,
    onDelete: (key) => {
      metrics.forgetRule(key);
    },
  });
  const lifetime = new AbortController();
  let stopping = false;
  // The key that signs author records (its own Secret, shared by every replica) comes first:
  // the webhook signs with it, and the audit trusts no record it does not verify.
  const signer = authorSigner(
    await retrying(
      () =>
        ensureAuthorKey({
          client,
          logger,
          namespace: config.namespace,
          secretName: config.authorKeySecretName,
        }),
      rt,
      lifetime.signal,
      logger,
      'read or create the author signing key',
    ),
  );

  const informer = (
    path: string,
    query: Record<string, string> = {},
    retain?: (obj: KubeObject) => KubeObject,
  ): Informer => {
    const inf = createInformer(collectionListWatch(client, path, query), {
      delay: rt.delay,
      transform: withoutManagedFields,
      ...(retain === undefined ? {} : { retain }),
    });
    inf.on('error', (err, retryInMs) => {
      logger.warn({ resource: path, err: describeError(err), retryInMs }, 'watch failed; retrying');
    });
    return inf;
  };
  const byName = (name: string): Record<string, string> => ({
    fieldSelector: `metadata.name=${name}`,
  });
  // ModRules are compiled into the store as they arrive; the cache keeps only their identity.
  const modRules = informer(
    `/apis/${MODRULE_GROUP}/${MODRULE_VERSION}/${MODRULE_PLURAL}`,
    {},
    retainedModRule,
  );
  const namespaces = informer('/api/v1/namespaces');
  const nodes = informer('/api/v1/nodes');
  const secrets = informer(
    `/api/v1/namespaces/${config.namespace}/secrets`,
    byName(config.secretName),
  );
  const webhookConfigs = [
    informer(
      '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
      byName(config.mutatingWebhookName),
    ),
    informer(
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      byName(config.validatingWebhookName),
    ),
  ];
  const ruleInformers = [modRules, namespaces, nodes];
  // ExternalDataProvider objects and their answer cache (docs/lookups.md, "External data").
  const external = createOperatorExternalData({
    client,
    informer: (path) => informer(path),
    namespace: config.namespace,
    clusterNamespace: config.clusterNamespace,
    logger,
    now: rt.now,
  });
  // Watch caches that template lookups read (docs/lookups-operator.md); ready only once synced.
  const lookups = createOperatorLookups({
    client,
    kinds: config.lookupKinds,
    clusterNamespace: config.clusterNamespace,
    modRules,
    // The record apply-to-existing trusts: signed by this operator's key (issue 37).
    authorOf: (ruleObject) => authorOf(ruleObject, signer),
    logger,
    now: rt.now,
    delay: rt.delay,
    external: {
      view: (asker, provider, key) => external.data.view.external(asker, provider, key),
      resolver: external.data.resolver,
    },
  });

  let leaderWork: () => void = () => undefined;
  let initialSyncDone = false;
  const elector = new LeaderElector({
    client,
    logger,
    namespace: config.namespace,
    name: config.leaseName,
    identity: config.identity,
    now: rt.now,
    delay: rt.delay,
    leaseDurationMs: config.leaseDurationMs,
    renewDeadlineMs: config.renewDeadlineMs,
    retryPeriodMs: config.retryPeriodMs,
    onStartedLeading: () => {
      statusWriter.resync();
      leaderWork();
      operatorAudit.onStartedLeading();
    },
  });
  const statusWriter = new StatusWriter({
    client,
    logger,
    now: rt.now,
    // Statuses wait for the initial sync: at startup the lists and the compiling of every rule
    // come first, and 10,000 status writes (and their watch events) would compete with them.
    mayWrite: () => elector.isLeader && initialSyncDone,
    concurrency: 16,
  });
  bindModRuleInformer(modRules, {
    store,
    clusterNamespace: config.clusterNamespace,
    compilers: cachingCompilers(),
    logger,
    onResult: (key, result) => {
      statusWriter.record(key, result);
    },
  });
  const events = new RuleEventRecorder({
    client,
    logger,
    now: rt.now,
    intervalMs: config.eventIntervalMs,
    uidOf: (ns, name) => {
      const uid = (modRules.get(`${ns}/${name}`)?.metadata as { uid?: unknown } | undefined)?.uid;
      return typeof uid === 'string' ? uid : undefined;
    },
  });

  const refs = informerRefs(namespaces, nodes);
  // Periodic audit (off unless configured) and apply-to-existing (annotated rules only); docs/audit.md.
  const operatorAudit = startOperatorAudit({
    auditIntervalMs: config.auditIntervalMs,
    applyExistingRate: config.applyExistingRate,
    applyOptIn: config.applyExistingOptIn,
    applyExistingMaxRate: config.applyExistingMaxRate,
    applyExistingMaxRollouts: config.applyExistingMaxRollouts,
    applyExistingRolloutTimeoutMs: config.applyExistingRolloutTimeoutMs,
    authorSigner: signer,
    reportBounds: config.reportBounds,
    client,
    store,
    modRules,
    namespaces,
    mutatingConfiguration: () => webhookConfigs[0]?.get(config.mutatingWebhookName),
    refs,
    limits: { template: {}, work: config.work },
    isLeader: () => elector.isLeader,
    metrics,
    logger,
    now: rt.now,
    delay: rt.delay,
  });

  const certs = new CertManager({
    client,
    logger,
    namespace: config.namespace,
    secretName: config.secretName,
    dnsNames: [
      ...serviceDnsNames(config.serviceName, config.namespace),
      ...certificateExtraDnsNames(config),
    ],
    ipAddresses: certificateIpAddresses(config),
    now: rt.now,
    validityMs: config.certValidityMs,
    rotateAt: config.certRotateAt,
  });
  // The certificate is read or made while the informers list (its keys are generated on the thread
  // pool): both are on the way to serving, neither waits for the other.
  let current: ServingCertificate | undefined;
  const injector = new WebhookCaInjector({
    client,
    logger,
    urlBase: config.webhookUrlBase,
    configs: [
      { resource: 'mutatingwebhookconfigurations', name: config.mutatingWebhookName },
      { resource: 'validatingwebhookconfigurations', name: config.validatingWebhookName },
    ],
  });
  registerOperatorMetrics(metrics.registry, {
    isLeader: () => elector.isLeader,
    certificateSecret: config.secretName,
    certificateNotAfterMs: () => current?.notAfter,
    webhookConfigurationsPresent: () => injector.configurationsPresent(),
  });
  const certificate = retrying(
    () => certs.ensure(),
    rt,
    lifetime.signal,
    logger,
    'read or create the webhook certificate',
  ).then((cert) => {
    // The Secret informer may already have delivered it (or a newer one).
    current ??= cert;
    return current;
  });
  // Settled copy for the leader's chain, so a failure is reported once (by startOperator).
  const certificateSettled = certificate.then(
    () => undefined,
    () => undefined,
  );

  // Set once the webhook listens.
  const serving: { server?: StartedWebhookServer } = {};
  // Ready once the store is loaded and the webhook listens with a certificate.
  const ready = (): boolean =>
    !stopping &&
    serving.server !== undefined &&
    ruleInformers.every((inf) => inf.synced) &&
    lookups.caches.synced() &&
    external.synced();
  const health: HealthServer | undefined =
    config.healthPort < 0
      ? undefined
      : await startHealthServer({
          host: config.host,
          port: config.healthPort,
          ready,
          metrics,
          metricsCacheMs: config.metricsCacheMs,
          now: rt.now,
        });
  const startServer = (cert: ServingCertificate): Promise<StartedWebhookServer> =>
    startWebhookServer(
      {
        store: () => store,
        refs,
        nodeRefs: createNodeRefBinder(client, logger),
        logger,
        metrics,
        ready,
        onRuleFailure: (failure, context) => {
          events.record(failure, context);
        },
        limits: {
          bodyLimitBytes: config.bodyLimitBytes,
          deadlineMs: config.deadlineMs,
          template: {},
          work: config.work,
        },
        clusterNamespace: config.clusterNamespace,
        cluster: lookups.view,
        askResolver: lookups.resolver,
        lookupAdmission: lookups.admission,
        authorSigner: signer,
        dryRun: config.dryRun,
        ...(rt.helperThreads === undefined ? {} : { helperThreads: rt.helperThreads }),
      },
      {
        host: config.host,
        port: config.webhookPort,
        tls: { cert: cert.certPem, key: cert.keyPem },
        shutdownGraceMs: config.shutdownGraceMs,
        shutdownDelayMs: config.shutdownDelayMs,
        shutdownDelay: (ms) => rt.delay(ms, new AbortController().signal),
      },
    );

  // Every replica follows the Secret and serves whatever certificate it holds.
  const followSecret = (obj: KubeObject): void => {
    const cert = parseCertificateSecret(obj);
    if (cert === undefined || cert.certPem === current?.certPem) return;
    current = cert;
    serving.server?.reloadCertificate({ cert: cert.certPem, key: cert.keyPem });
  };
  secrets.on('add', followSecret);
  secrets.on('update', followSecret);
  secrets.on('delete', () => {
    leaderWork();
  });

  // Leader work runs one at a time: rotation (which publishes the new bundle first), then the CA injection.
  // (The injector is created above, with the metrics that read it.)
  // Leader work starts once this replica holds a certificate.
  let chain: Promise<void> = certificateSettled;
  let queued = false;
  leaderWork = (): void => {
    if (queued || stopping) return;
    queued = true;
    chain = chain.then(async () => {
      queued = false;
      if (!elector.isLeader || stopping || current === undefined) return;
      try {
        const rotated = await certs.rotateIfNeeded(async (bundle) => {
          await injector.reconcile(bundle);
        }, current);
        if (rotated !== undefined) {
          current = rotated;
          serving.server?.reloadCertificate({ cert: rotated.certPem, key: rotated.keyPem });
        }
        await injector.reconcile(current.caBundlePem);
      } catch (err) {
        logger.warn({ err: describeError(err) }, 'webhook certificate reconciliation failed');
      }
    });
  };
  for (const inf of webhookConfigs) {
    inf.on('add', leaderWork);
    inf.on('update', leaderWork);
    inf.on('delete', leaderWork); // reported as missing at once, not at the next period
  }
  const periodic = setInterval(leaderWork, config.reconcileIntervalMs);

  for (const inf of [...ruleInformers, secrets, ...webhookConfigs, external.informer]) inf.start();
  elector.start();
  const readyPromise = Promise.all([
    ...ruleInformers.map((inf) => inf.waitForSync()),
    lookups.caches.waitForSync(),
    external.waitForSync(),
  ]).then(() => {
    logger.info({ rules: store.size }, 'initial sync complete; ready');
    initialSyncDone = true;
    statusWriter.resync();
  });
  // The webhook listens only once the store is fully loaded: it never answers from a partial store.
  let listening: StartedWebhookServer;
  try {
    const [cert] = await Promise.all([certificate, readyPromise]);
    listening = await startServer(current ?? cert);
  } catch (err) {
    // No certificate (or no listener): undo what started, so the caller's process can exit.
    stopping = true;
    clearInterval(periodic);
    lifetime.abort();
    await operatorAudit.stop();
    await elector.stop();
    for (const inf of [...ruleInformers, secrets, ...webhookConfigs, external.informer]) inf.stop();
    lookups.caches.stop();
    external.data.close();
    await health?.close();
    throw err;
  }
  serving.server = listening;

  let stopped: Promise<void> | undefined;
  return {
    webhookUrl: listening.url,
    healthUrl: health?.url,
    store,
    ready,
    isLeader: () => elector.isLeader,
    waitForReady: () => readyPromise,
    pendingStatusWrites: () => statusWriter.pending,
    stop(): Promise<void> {
      stopped ??= (async (): Promise<void> => {
        // Lame duck first: /readyz turns 503 at once (the Pod leaves the Service's endpoints) while
        // the webhook keeps accepting and answering for --shutdown-delay-ms, so a connection that
        // kube-proxy still sends here is served, not refused (src/webhook/http/lame-duck.ts).
        stopping = true;
        const closing = listening.close();
        clearInterval(periodic);
        lifetime.abort();
        // A running apply-to-existing job finishes its object (whose update this replica's webhook
        // may be serving) and writes its progress while this replica still leads.
        await operatorAudit.stop();
        await elector.stop();
        await closing;
        for (const inf of [...ruleInformers, secrets, ...webhookConfigs, external.informer])
          inf.stop();
        lookups.caches.stop();
        external.data.close();
        await chain;
        await health?.close();
        logger.info('operator stopped');
      })();
      return stopped;
    },
  };
}

async function retrying<T>(
  work: () => Promise<T>,
  rt: OperatorRuntime,
  signal: AbortSignal,
  logger: Logger,
  what: string,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (signal.aborted || attempt >= 30) throw err;
      const wait = Math.min(5_000, 250 * 2 ** (attempt - 1));
      logger.warn({ err: describeError(err), retryInMs: wait }, `could not ${what}; retrying`);
      await rt.delay(wait, signal);
    }
  }
}
