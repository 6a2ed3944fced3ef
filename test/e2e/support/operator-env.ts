import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { runOperator } from '../../../src/cli/operator-command.js';
import type { RunningOperator } from '../../../src/controller/operator.js';
import { freeLoopbackPorts } from '../../cluster/control-plane.js';
import { waitFor } from './kubectl.js';

export const SYSTEM_NAMESPACE = 'kubemod-system';
/** The operator's service account, as a user name (for impersonating it). */
export const OPERATOR_ACCOUNT = `system:serviceaccount:${SYSTEM_NAMESPACE}:kubemod-operator`;
export const MUTATING = 'kubemod-mutating-webhook-configuration';
export const VALIDATING = 'kubemod-validating-webhook-configuration';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

export type Kubectl = (args: readonly string[], options?: { input?: string }) => Promise<string>;

interface Doc {
  kind?: string;
  metadata?: { name?: string; deletionTimestamp?: string };
  spec?: { finalizers?: string[] };
  webhooks?: { clientConfig?: { service?: { path?: string }; url?: string; caBundle?: string } }[];
}

function loadDocs(relativePath: string): Doc[] {
  return (loadAll(readFileSync(`${repoRoot}/${relativePath}`, 'utf8')) as (Doc | null)[]).filter(
    (d): d is Doc => d !== null,
  );
}

/**
 * Creates the namespace; one a previous run left Terminating is first let go: its Pods are
 * force-deleted (no kubelet confirms their deletion), then the namespace controller finishes.
 */
export async function ensureNamespace(kubectl: Kubectl, name: string): Promise<void> {
  const read = async (): Promise<Doc | undefined> => {
    const out = await kubectl(['get', 'namespace', '--ignore-not-found', '-o', 'json', name]);
    return out.trim() === '' ? undefined : (JSON.parse(out) as Doc);
  };
  const ns = await read();
  if (ns !== undefined) {
    if (ns.metadata?.deletionTimestamp === undefined) return;
    await kubectl(['delete', 'pods', '--all', '-n', name, '--force', '--grace-period=0']);
    await waitFor(
      `namespace ${name} to finish terminating`,
      async () => ((await read()) === undefined ? true : undefined),
      90_000,
    );
  }
  await kubectl(['create', 'namespace', name]);
}

/** Installs the CRDs of config/crd (ModRule, ExternalDataProvider) and waits until established. */
export async function installCrd(kubectl: Kubectl): Promise<void> {
  await kubectl(['apply', '-f', `${repoRoot}/config/crd/`]);
  await kubectl([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/modrules.api.kubemod.io',
    'crd/externaldataproviders.api.kubemod.io',
  ]);
}

/**
 * The webhook configurations of config/webhook, with each service reference replaced by
 * `url: <urlBase><path>` and no caBundle: the operator under test must inject it.
 */
export function urlWebhookConfigurations(urlBase: string): Doc[] {
  return [
    'config/webhook/mutating-webhook-configuration.yaml',
    'config/webhook/validating-webhook-configuration.yaml',
  ]
    .flatMap(loadDocs)
    .map((doc) => ({
      ...doc,
      webhooks: (doc.webhooks ?? []).map((hook) => {
        const path = hook.clientConfig?.service?.path ?? '/';
        return { ...hook, clientConfig: { url: `${urlBase}${path}` } };
      }),
    }));
}

export async function applyWebhookConfigurations(kubectl: Kubectl, urlBase: string): Promise<void> {
  const list = { apiVersion: 'v1', kind: 'List', items: urlWebhookConfigurations(urlBase) };
  await kubectl(['apply', '-f', '-'], { input: JSON.stringify(list) });
}

export async function deleteWebhookConfigurations(kubectl: Kubectl): Promise<void> {
  await kubectl(['delete', 'mutatingwebhookconfiguration', MUTATING, '--ignore-not-found']);
  await kubectl(['delete', 'validatingwebhookconfiguration', VALIDATING, '--ignore-not-found']);
}

/** True when every webhook of both configurations carries a caBundle. */
export async function caBundlesInjected(kubectl: Kubectl): Promise<boolean> {
  for (const kind of ['mutatingwebhookconfiguration', 'validatingwebhookconfiguration']) {
    const name = kind.startsWith('mutating') ? MUTATING : VALIDATING;
    const doc = JSON.parse(await kubectl(['get', kind, name, '-o', 'json'])) as Doc;
    if ((doc.webhooks ?? []).some((h) => (h.clientConfig?.caBundle ?? '') === '')) return false;
  }
  return true;
}

export interface TestOperator {
  readonly operator: RunningOperator;
  readonly urlBase: string;
  readonly logs: string[];
  /** SIGTERM equivalent; resolves the exit code. */
  stop(): Promise<number>;
}

/** Runs `kubemod-ts operator` in-process against a kubeconfig, URL-based on a free loopback port. */
export async function startTestOperator(
  kubeconfigPath: string,
  extraArgs: readonly string[] = [],
): Promise<TestOperator> {
  const [port] = await freeLoopbackPorts(1);
  if (port === undefined) throw new Error('no free port');
  const urlBase = `https://127.0.0.1:${String(port)}`;
  const abort = new AbortController();
  const logs: string[] = [];
  let started: (op: RunningOperator) => void = () => undefined;
  const startedPromise = new Promise<RunningOperator>((resolve) => {
    started = resolve;
  });
  const exit = runOperator(
    [
      '--kubeconfig',
      kubeconfigPath,
      '--webhook-host',
      '127.0.0.1',
      '--webhook-port',
      String(port),
      '--health-port',
      '0',
      '--webhook-url-base',
      urlBase,
      '--reconcile-interval-ms',
      '2000',
      '--lease-duration-ms',
      '4000',
      '--log-level',
      process.env.KUBEMOD_E2E_LOG_LEVEL ?? 'warn',
      // Tests scrape /metrics right after the requests they count (the cache: a unit test).
      '--metrics-cache-ms',
      '0',
      // No Service in front of a local process: nothing to drain, so no lame-duck delay on stop.
      '--shutdown-delay-ms',
      '0',
      ...extraArgs,
    ],
    {
      stdout: (text) => {
        logs.push(text);
        if (process.env.KUBEMOD_E2E_LOG_LEVEL !== undefined) process.stdout.write(text);
      },
      stderr: (text) => {
        logs.push(text);
        process.stderr.write(text);
      },
      env: {},
      signal: abort.signal,
      onStarted: started,
    },
  );
  const operator = await Promise.race([
    startedPromise,
    exit.then((code) => {
      throw new Error(`operator exited with ${String(code)}: ${logs.join('')}`);
    }),
  ]);
  return {
    operator,
    urlBase,
    logs,
    stop: () => {
      abort.abort();
      return exit;
    },
  };
}

/**
 * The operator wired to a cluster as the e2e tests use it: kubemod-system and the CRD installed,
 * the operator started, URL-based webhook configurations applied and their caBundle injected,
 * every informer synced.
 */
export async function startOperatorOn(
  kubectl: Kubectl,
  kubeconfigPath: string,
): Promise<TestOperator> {
  await ensureNamespace(kubectl, SYSTEM_NAMESPACE);
  await installCrd(kubectl);
  const op = await startTestOperator(kubeconfigPath);
  await wireTestOperator(kubectl, op);
  return op;
}

/**
 * Points the API server at a started test operator: its URL-based webhook configurations
 * applied, their caBundle injected (by the operator), then every informer synced.
 */
export async function wireTestOperator(kubectl: Kubectl, op: TestOperator): Promise<void> {
  await applyWebhookConfigurations(kubectl, op.urlBase);
  await waitFor(
    'caBundle injected',
    async () => ((await caBundlesInjected(kubectl)) ? true : undefined),
    20_000,
  );
  await op.operator.waitForReady();
}
