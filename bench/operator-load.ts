/**
 * Operator startup at scale: a private control plane with N ModRules across M namespaces, then the
 * operator started in a child process (so its RSS is its own) until /readyz-equivalent readiness.
 *
 *   npx tsc -p tsconfig.bench.json && node dist/bench/operator-load.js [--rules 5000] [--namespaces 500]
 *     [--node-options '<flags>'] [--runs 1] [--cpu-prof <dir>] [--traffic-ms 0]
 *
 * Prints startup-to-ready (process start → every informer synced → rules compiled into the store),
 * the time until the leader has written every ModRule's Ready status, and RSS/heap at that size.
 * The operator runs with the NODE_OPTIONS its Deployment sets (config/manager/deployment.yaml),
 * as shipped; `--node-options ''` runs it with V8's defaults instead. `--runs N` starts the operator
 * N times, one after another, against the same populated cluster; `--cpu-prof <dir>` writes each
 * run's V8 CPU profile there (for diagnosis: profiling slows the operator down).
 * `--traffic-ms N` (N > 0) then sends admission traffic to the operator's own webhook, N ms per
 * object, and prints its RSS after it, after 5 s idle and after GC (bench/lib/operator-traffic.ts);
 * then the floor server (bench/floor-server.ts) gets the same traffic with the same Node and
 * NODE_OPTIONS, and its RSS and the operator's RSS beyond it are printed (bench/lib/floor-memory.ts).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../test/cluster/binaries.js';
import { startControlPlane } from '../test/cluster/control-plane.js';
import { createKubeClient, type KubeClient } from '../src/kube/kube-client.js';
import { kubeconfigConnection } from '../src/kube/kube-connection.js';
import type { RunningOperator } from '../src/controller/operator.js';
import {
  createNamespaces,
  installModRuleCrd,
  pool,
  startBenchOperator,
  waitForModRules,
} from './lib/bench-operator.js';
import { floorMemoryLines, measureFloorMemory } from './lib/floor-memory.js';
import {
  prepareTraffic,
  sendTraffic,
  trafficLines,
  type TrafficPlan,
  type TrafficResult,
} from './lib/operator-traffic.js';

/** The child's JSON line. */
interface ChildReport {
  readonly readyMs: number;
  readonly sinceStartMs: number;
  readonly cpuMs: number;
  readonly statusMs: number;
  readonly storeSize: number;
  readonly rssAtReadyMb: number;
  readonly rssSettledMb: number;
  readonly heapUsedSettledMb: number;
  /** With `--traffic-ms N`, N > 0. */
  readonly traffic?: TrafficResult;
}

function rule(i: number, namespace: string): object {
  const reject = i % 5 === 4;
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name: `rule-${String(i)}`, namespace },
    spec: reject
      ? {
          type: 'Reject',
          rejectMessage:
            'image {{ (index .Target.spec.template.spec.containers 0).image }} is not allowed',
          match: [
            { select: '$.kind', matchValue: 'Deployment' },
            {
              select: '$.spec.template.spec.containers[*].image',
              matchRegex: `.*:bad-${String(i)}$`,
            },
          ],
        }
      : {
          type: 'Patch',
          executionTier: i % 3,
          match: [
            { select: '$.kind', matchValues: ['Deployment', 'StatefulSet'] },
            { select: `$.metadata.labels.app == "app-${String(i)}"` },
          ],
          patch: [
            {
              op: 'add',
              path: '/metadata/annotations/rule',
              value: `"{{ .Target.metadata.name }}-${String(i)}"`,
            },
            {
              op: 'add',
              path: '/spec/template/spec/containers/-1',
              value: 'name: sidecar\nimage: busybox:1.36',
            },
          ],
        },
  };
}

async function populate(client: KubeClient, rules: number, namespaces: number): Promise<number> {
  const started = performance.now();
  await installModRuleCrd(client);
  const names = Array.from({ length: namespaces }, (_, i) => `load-${String(i)}`);
  await createNamespaces(client, [...names, 'kubemod-system'], 32);
  await waitForModRules(client);
  await pool(rules, 48, (i) => {
    const namespace = names[i % namespaces] ?? 'load-0';
    return client.request({
      method: 'POST',
      path: `/apis/api.kubemod.io/v1beta1/namespaces/${namespace}/modrules`,
      body: rule(i, namespace),
    });
  });
  return performance.now() - started;
}

/**
 * Child mode: run the operator, report when ready and when every status is written, then (with a
 * traffic plan) its memory after admission traffic.
 */
async function child(
  kubeconfigPath: string,
  rules: number,
  traffic: TrafficPlan | undefined,
): Promise<void> {
  const t0 = performance.now();
  const operator = await startBenchOperator(kubeconfigPath, ['--lease-duration-ms', '2000']);
  try {
    await measureChild(operator, t0, rules, traffic);
  } finally {
    await operator.stop();
  }
}

async function measureChild(
  operator: RunningOperator,
  t0: number,
  rules: number,
  traffic: TrafficPlan | undefined,
): Promise<void> {
  await operator.waitForReady();
  const readyMs = performance.now() - t0;
  // From process start (module loading included), and the CPU time spent until then (user +
  // system, all threads): a measure that holds up better than wall time on a busy machine.
  const sinceStartMs = performance.now();
  const cpu = process.cpuUsage();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  if (operator.store.size !== rules)
    throw new Error(`expected ${String(rules)} rules, store has ${String(operator.store.size)}`);
  const atReady = process.memoryUsage();
  // Wait until the leader has taken the Lease and written every Ready condition.
  while (!operator.isLeader() || operator.pendingStatusWrites() > 0) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const statusMs = performance.now() - t0;
  globalThis.gc?.();
  const settled = process.memoryUsage();
  const result: ChildReport = {
    readyMs,
    sinceStartMs,
    cpuMs,
    statusMs,
    storeSize: operator.store.size,
    rssAtReadyMb: atReady.rss / 2 ** 20,
    rssSettledMb: settled.rss / 2 ** 20,
    heapUsedSettledMb: settled.heapUsed / 2 ** 20,
    ...(traffic === undefined ? {} : { traffic: await sendTraffic(operator.webhookUrl, traffic) }),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** The NODE_OPTIONS of the operator container in config/manager/deployment.yaml. */
async function shippedNodeOptions(): Promise<string> {
  const { loadAll } = await import('js-yaml');
  const { readFileSync } = await import('node:fs');
  interface Deployment {
    kind?: string;
    spec?: {
      template?: {
        spec?: { containers?: { name: string; env?: { name: string; value?: string }[] }[] };
      };
    };
  }
  const docs = loadAll(
    readFileSync(join(repoRoot(), 'config', 'manager', 'deployment.yaml'), 'utf8'),
  ) as Deployment[];
  const container = docs
    .find((d) => d.kind === 'Deployment')
    ?.spec?.template?.spec?.containers?.find((c) => c.name === 'operator');
  return container?.env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '';
}

/** The Secret the operator keeps its webhook certificate in (the defaults of `operator`). */
const CERT_SECRET_PATH = '/api/v1/namespaces/kubemod-system/secrets/kubemod-webhook-server-cert';

/** Runs the operator in a child process; resolves with its stdout. */
function runChild(
  kubeconfigPath: string,
  rules: number,
  nodeOptions: string,
  profileDir: string | undefined,
  traffic: TrafficPlan | undefined,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [
        '--expose-gc',
        ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]),
        // Compiled (dist/bench) runs the operator as shipped; the source runs through tsx.
        ...(import.meta.filename.endsWith('.ts') ? ['--import', 'tsx'] : []),
        import.meta.filename,
        '--child',
        kubeconfigPath,
        '--rules',
        String(rules),
        ...(traffic === undefined ? [] : ['--traffic', JSON.stringify(traffic)]),
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, NODE_OPTIONS: nodeOptions },
      },
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

function report(r: Partial<ChildReport>): void {
  const fmt = (n: number | undefined): string => (n === undefined ? '?' : n.toFixed(0));
  console.log(
    `operator ready (all informers synced, ${fmt(r.storeSize)} rules compiled) in ${fmt(r.readyMs)} ms (${fmt(r.sinceStartMs)} ms from process start; CPU ${fmt(r.cpuMs)} ms)`,
  );
  console.log(`every ModRule's Ready status written by ${fmt(r.statusMs)} ms`);
  console.log(
    `RSS at ready ${fmt(r.rssAtReadyMb)} MiB; after statuses + GC ${fmt(r.rssSettledMb)} MiB (heap used ${fmt(r.heapUsedSettledMb)} MiB)`,
  );
  if (r.traffic !== undefined) for (const line of trafficLines(r.traffic)) console.log(line);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rules: { type: 'string' },
      namespaces: { type: 'string' },
      child: { type: 'string' },
      'node-options': { type: 'string' },
      runs: { type: 'string' },
      'cpu-prof': { type: 'string' },
      'traffic-ms': { type: 'string' },
      traffic: { type: 'string' },
    },
  });
  const rules = Number(values.rules ?? 5000);
  const namespaces = Number(values.namespaces ?? 500);
  if (values.child !== undefined) {
    const plan =
      values.traffic === undefined ? undefined : (JSON.parse(values.traffic) as TrafficPlan);
    await child(values.child, rules, plan);
    return;
  }
  const trafficMs = Number(values['traffic-ms'] ?? 0);
  if (!(trafficMs >= 0)) throw new Error('--traffic-ms must be a number >= 0');
  // Built and written here, before the control plane starts, not in the measured process.
  const traffic = trafficMs > 0 ? prepareTraffic(trafficMs) : undefined;
  const nodeOptions = values['node-options'] ?? (await shippedNodeOptions());
  const plane = await startControlPlane();
  try {
    const populateMs = await populate(
      createKubeClient(kubeconfigConnection(plane.kubeconfigPath)),
      rules,
      namespaces,
    );
    console.log(
      `created ${String(rules)} ModRules in ${String(namespaces)} namespaces in ${(populateMs / 1000).toFixed(1)} s`,
    );
    const runs = Math.max(1, Number(values.runs ?? 1));
    const profileDir = values['cpu-prof'];
    const client = createKubeClient(kubeconfigConnection(plane.kubeconfigPath));
    for (let run = 1; run <= runs; run++) {
      if (runs > 1) console.log(`run ${String(run)} of ${String(runs)}:`);
      // Every run is a first install: the webhook certificate is generated again.
      if (run > 1) await client.request({ method: 'DELETE', path: CERT_SECRET_PATH });
      const out = await runChild(plane.kubeconfigPath, rules, nodeOptions, profileDir, traffic);
      const parsed = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Partial<ChildReport>;
      report(parsed);
      // The runtime's own share: a bare Node HTTPS server given the same traffic, right after.
      if (traffic !== undefined) {
        const floor = await measureFloorMemory(traffic, nodeOptions);
        for (const line of floorMemoryLines(floor, parsed.traffic)) console.log(line);
      }
    }
    console.log(`node ${process.version}, NODE_OPTIONS=${JSON.stringify(nodeOptions)}`);
  } finally {
    await plane.stop();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
