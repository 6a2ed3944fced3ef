/**
 * What the operator load benchmarks (operator-load.ts, lookups-operator-load.ts) share: filling
 * the private control plane (the ModRule CRD, namespaces, a bounded pool of requests), and the
 * operator as their child process starts it (webhook and health on loopback ports of its own,
 * silent logger, fresh metrics).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { repoRoot } from '../../test/cluster/binaries.js';
import { parseOperatorArgs } from '../../src/cli/operator-config.js';
import { startOperator, type RunningOperator } from '../../src/controller/operator.js';
import { sleepWithSignal } from '../../src/kube/informer.js';
import { createKubeClient, type KubeClient } from '../../src/kube/kube-client.js';
import { kubeconfigConnection } from '../../src/kube/kube-connection.js';
import { createSilentLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';

/** Runs `work(0)` … `work(count - 1)` with at most `concurrency` calls in flight. */
export async function pool(
  count: number,
  concurrency: number,
  work: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** Creates the ModRule CRD from config/crd (it is served a moment later: waitForModRules). */
export async function installModRuleCrd(client: KubeClient): Promise<void> {
  const crd = readFileSync(
    join(repoRoot(), 'config', 'crd', 'modrules.api.kubemod.io.yaml'),
    'utf8',
  );
  await client.request({
    method: 'POST',
    path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    body: load(crd),
  });
}

/** Creates the namespaces `names`, `concurrency` at a time. */
export async function createNamespaces(
  client: KubeClient,
  names: readonly string[],
  concurrency: number,
): Promise<void> {
  await pool(names.length, concurrency, (i) =>
    client.request({
      method: 'POST',
      path: '/api/v1/namespaces',
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: names[i] } },
    }),
  );
}

/** Waits until the API server serves ModRules (the CRD takes a moment after its creation). */
export async function waitForModRules(client: KubeClient): Promise<void> {
  for (;;) {
    try {
      await client.request({
        method: 'GET',
        path: '/apis/api.kubemod.io/v1beta1/modrules',
        query: { limit: 1 },
      });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * Starts the operator against the cluster of `kubeconfigPath` with `extraArgs` after the
 * loopback defaults, through `client` (default: a client of that kubeconfig).
 */
export async function startBenchOperator(
  kubeconfigPath: string,
  extraArgs: readonly string[] = [],
  client: KubeClient = createKubeClient(kubeconfigConnection(kubeconfigPath)),
): Promise<RunningOperator> {
  const parsed = parseOperatorArgs(
    [
      '--kubeconfig',
      kubeconfigPath,
      '--webhook-host',
      '127.0.0.1',
      '--webhook-port',
      '0',
      '--health-port',
      '0',
      ...extraArgs,
    ],
    {},
  );
  if (parsed.kind !== 'config') throw new Error('unexpected help');
  return startOperator(parsed.config, {
    client,
    logger: createSilentLogger(),
    metrics: createMetrics(),
    now: Date.now,
    delay: sleepWithSignal,
  });
}
