/**
 * The operator with lookup caches on a real control plane (issue 35):
 *
 *   npx tsc -p tsconfig.bench.json && node dist/bench/lookups-operator-load.js [--admissions 300]
 *
 * A private kube-apiserver + etcd gets 2,000 Deployments, 10,000 ReplicaSets and 5,000 ConfigMaps
 * (bench/lib/lookup-objects.ts) and 100 ModRules in team-0 that use lookups (half a ConfigMap,
 * half the owner chain Pod → ReplicaSet → Deployment). The operator then starts in a child
 * process (its RSS is its own) with the default --lookup-kinds and the shipped NODE_OPTIONS, and
 * reports: time to ready (every informer and lookup cache synced), RSS at ready and after GC,
 * and — sending AdmissionReviews for a Pod to its webhook — the API requests it makes per
 * admission once warm (counted by a wrapper around its Kubernetes client; target 0) and the
 * admission latency.
 */
import { spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../test/cluster/control-plane.js';
import { createKubeClient, type KubeClient } from '../src/kube/kube-client.js';
import { kubeconfigConnection } from '../src/kube/kube-connection.js';
import {
  createNamespaces,
  installModRuleCrd,
  pool,
  startBenchOperator,
  waitForModRules,
} from './lib/bench-operator.js';
import { WEBHOOK_PATHS } from '../src/webhook/server.js';
import { AUTHOR_ANNOTATION } from '../src/authz/author-record.js';
import { percentile } from './lib/measure.js';
import { countingClient } from './lib/counting-client.js';
import {
  CONFIGMAPS,
  DEPLOYMENTS,
  NAMESPACES,
  REPLICASETS_PER_DEPLOYMENT,
  configMap,
  deployment,
  replicaSet,
} from './lib/lookup-objects.js';

const ADMIN = JSON.stringify({ username: 'admin', groups: ['system:masters'], extra: {} });

function lookupRule(i: number): object {
  const value =
    i % 2 === 0
      ? `{{ (lookup "v1" "ConfigMap" "team-0" "settings-${String(i % 50)}").data.value }}`
      : '{{ (index (ownerChain .Target) 1).metadata.labels.app }}';
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    // No ModRule webhook runs on this plane: the author record is written as it would have.
    metadata: {
      name: `lookup-${String(i)}`,
      namespace: 'team-0',
      annotations: { [AUTHOR_ANNOTATION]: ADMIN },
    },
    spec: {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'Pod' }],
      patch: [{ op: 'add', path: `/metadata/annotations/r${String(i)}`, value }],
    },
  };
}

async function populate(client: KubeClient): Promise<number> {
  const t0 = performance.now();
  await installModRuleCrd(client);
  const names = [
    ...Array.from({ length: NAMESPACES }, (_, i) => `team-${String(i)}`),
    'kubemod-system',
  ];
  await createNamespaces(client, names, 16);
  const post = (path: string, body: object): Promise<unknown> =>
    client.request({ method: 'POST', path, body, discardResponse: true });
  const nsOf = (o: object): string => (o as { metadata: { namespace: string } }).metadata.namespace;
  await pool(DEPLOYMENTS, 32, (i) => {
    const d = deployment(i);
    return post(`/apis/apps/v1/namespaces/${nsOf(d)}/deployments`, d);
  });
  await pool(DEPLOYMENTS * REPLICASETS_PER_DEPLOYMENT, 32, (n) => {
    const rs = replicaSet(
      Math.floor(n / REPLICASETS_PER_DEPLOYMENT),
      n % REPLICASETS_PER_DEPLOYMENT,
    );
    return post(`/apis/apps/v1/namespaces/${nsOf(rs)}/replicasets`, rs);
  });
  await pool(CONFIGMAPS, 32, (i) => {
    const cm = configMap(i);
    return post(`/api/v1/namespaces/${nsOf(cm)}/configmaps`, cm);
  });
  await waitForModRules(client);
  await pool(100, 16, (i) =>
    post('/apis/api.kubemod.io/v1beta1/namespaces/team-0/modrules', lookupRule(i)),
  );
  return performance.now() - t0;
}

/** A Pod of Deployment web-0 (its ReplicaSet web-0-rs-0 is owned by the Deployment). */
function admissionReview(uid: string): string {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-0-abcde',
      namespace: 'team-0',
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-0-rs-0',
          uid: 'u',
          controller: true,
        },
      ],
    },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  };
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'team-0',
      operation: 'CREATE',
      userInfo: { username: 'system:serviceaccount:kube-system:replicaset-controller' },
      object: pod,
    },
  });
}

function admit(url: string, body: string): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${url}${WEBHOOK_PATHS.dragnet}`,
      {
        method: 'POST',
        rejectUnauthorized: false,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ ms: performance.now() - t0, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function child(kubeconfigPath: string, admissions: number): Promise<void> {
  const t0 = performance.now();
  const counted = countingClient(createKubeClient(kubeconfigConnection(kubeconfigPath)));
  const operator = await startBenchOperator(kubeconfigPath, [], counted.client);
  await operator.waitForReady();
  const readyMs = performance.now() - t0;
  const sinceStartMs = performance.now();
  const atReady = process.memoryUsage();
  const first = await admit(operator.webhookUrl, admissionReview('warm-0'));
  if (!first.text.includes('"patch"'))
    throw new Error(`first admission not patched: ${first.text.slice(0, 300)}`);
  const warmRequests = counted.snapshot();
  const times: number[] = [];
  for (let i = 0; i < admissions; i++)
    times.push((await admit(operator.webhookUrl, admissionReview(`a-${String(i)}`))).ms);
  const steady = counted.since(warmRequests);
  globalThis.gc?.();
  const settled = process.memoryUsage();
  times.sort((a, b) => a - b);
  process.stdout.write(
    `${JSON.stringify({
      readyMs,
      sinceStartMs,
      rssAtReadyMb: atReady.rss / 2 ** 20,
      rssSettledMb: settled.rss / 2 ** 20,
      heapUsedSettledMb: settled.heapUsed / 2 ** 20,
      firstAdmissionMs: first.ms,
      warmRequests: warmRequests.total,
      steadyRequests: steady,
      admissions,
      p50Ms: percentile(times, 0.5),
      p99Ms: percentile(times, 0.99),
    })}\n`,
  );
  await operator.stop();
}

function runChild(
  kubeconfigPath: string,
  admissions: number,
  nodeOptions: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [
        '--expose-gc',
        ...(import.meta.filename.endsWith('.ts') ? ['--import', 'tsx'] : []),
        import.meta.filename,
        '--child',
        kubeconfigPath,
        '--admissions',
        String(admissions),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: nodeOptions } },
    );
    let text = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    proc.on('exit', (code) => {
      if (code === 0) resolve(text);
      else reject(new Error(`child exited ${String(code)}`));
    });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      admissions: { type: 'string' },
      'node-options': { type: 'string' },
    },
  });
  const admissions = Number(values.admissions ?? 300);
  if (values.child !== undefined) {
    await child(values.child, admissions);
    return;
  }
  // The shipped NODE_OPTIONS (config/manager/deployment.yaml).
  const nodeOptions = values['node-options'] ?? '--max-semi-space-size=4 --max-old-space-size=384';
  const plane = await startControlPlane();
  try {
    const populateMs = await populate(createKubeClient(kubeconfigConnection(plane.kubeconfigPath)));
    console.log(`populated in ${(populateMs / 1000).toFixed(1)} s`);
    const out = await runChild(plane.kubeconfigPath, admissions, nodeOptions);
    const r = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<
      string,
      number | Record<string, number>
    >;
    console.log(JSON.stringify(r, null, 2));
    console.log(`node ${process.version}, NODE_OPTIONS=${JSON.stringify(nodeOptions)}`);
  } finally {
    await plane.stop();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
