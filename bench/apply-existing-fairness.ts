/**
 * `npm run bench:fairness`: does one namespace's flood of apply-to-existing jobs delay another
 * namespace? (issue 26, item 3)
 *
 * Drives the real apply-to-existing controller (src/audit/apply-existing/apply-existing-controller.ts, default
 * scheduling: 2 writes/s per namespace, 10/s in all, 8 namespaces at a time, 30 s turns, 3 s
 * settle) on real timers, against an in-memory API (bench/lib/memory-audit-api.ts) whose calls
 * each take BENCH_LATENCY_MS (default 2) and whose updates are patched by the real rule engine
 * with the same store (the webhook's part). Discovery goes through the real discoverTargets.
 *
 * Namespace tenant-a holds BENCH_RULES (default 10,000) annotated Patch rules and
 * BENCH_GROUPS × 3 ConfigMaps (default 100 groups: each rule matches the 3 ConfigMaps of its
 * group). With BENCH_NAMESPACES = n > 1 the rules and groups are spread over n namespaces
 * tenant-a0 … (more busy namespaces than the scheduler's 8 slots, say). All of tenant-a's jobs are queued at t = 0. After BENCH_JOIN_S (default 10) seconds,
 * one annotated rule appears in tenant-b (3 ConfigMaps). Reported: the delay until tenant-b's
 * first object is updated and its job completes; tenant-a's jobs and writes per second; API
 * calls; event-loop delay; heap and RSS. The run lasts BENCH_SECONDS (default 40).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  createApplyExistingController,
  DEFAULT_APPLY_SCHEDULING,
} from '../src/audit/apply-existing/apply-existing-controller.js';
import type { ApplyGate } from '../src/authz/apply-gate.js';
import type { RuleReporter } from '../src/audit/run/audit-api.js';
import { registerAuditMetrics } from '../src/audit/run/audit-metrics.js';
import { discoverTargets } from '../src/audit/cluster/cluster-inputs.js';
import { identityOf } from '../src/audit/run/object-verdict.js';
import { DEFAULT_DRAGNET_RULES, type TargetResource } from '../src/kube/target-resources.js';
import { sleepWithSignal } from '../src/kube/informer.js';
import { evaluate } from '../src/engine/evaluate.js';
import type { JsonObject } from '../src/engine/json.js';
import { RuleStore } from '../src/engine/store.js';
import { makeRule } from '../src/engine/test-rules.js';
import { createSilentLogger } from '../src/observability/logger.js';
import { createMetrics } from '../src/observability/metrics.js';
import { MemoryAuditApi } from './lib/memory-audit-api.js';

const ANNOTATION = 'api.kubemod.io/apply-to-existing';
const CONFIGMAPS: TargetResource = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return value;
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);

function ruleObject(namespace: string, name: string): JsonObject {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: {
      namespace,
      name,
      uid: `uid-${namespace}-${name}`,
      generation: 1,
      annotations: { [ANNOTATION]: 'true' },
    },
  };
}

function labelRule(namespace: string, name: string, group: string) {
  return makeRule(namespace, name, {
    type: 'Patch',
    match: [
      { select: '$.kind', matchValue: 'ConfigMap' },
      { select: '$.metadata.labels.group', matchValue: group },
    ],
    patch: [{ op: 'add', path: `/metadata/annotations/${name}`, value: 'done' }],
  });
}

async function main(): Promise<void> {
  const rules = envInt('BENCH_RULES', 10_000);
  const groups = Math.max(1, envInt('BENCH_GROUPS', 100));
  const joinS = envInt('BENCH_JOIN_S', 10);
  const seconds = envInt('BENCH_SECONDS', 40);
  const latencyMs = envInt('BENCH_LATENCY_MS', 2);
  const spread = Math.max(1, envInt('BENCH_NAMESPACES', 1));
  const nsOf = (i: number): string => (spread === 1 ? 'tenant-a' : `tenant-a${String(i % spread)}`);
  const settings = DEFAULT_APPLY_SCHEDULING;

  const api = new MemoryAuditApi(
    [
      {
        group: '',
        version: 'v1',
        resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['list'] }],
      },
    ],
    latencyMs,
  );
  const store = new RuleStore();
  const objects = new Map<string, JsonObject>();
  const heapBefore = process.memoryUsage().heapUsed;
  for (let i = 0; i < rules; i++) {
    const name = `r${String(i)}`;
    const g = i % groups;
    store.put(labelRule(nsOf(g), name, `g${String(g)}`));
    objects.set(`${nsOf(g)}/${name}`, ruleObject(nsOf(g), name));
  }
  for (let g = 0; g < groups; g++)
    for (let k = 0; k < 3; k++)
      api.add(CONFIGMAPS, {
        metadata: {
          name: `cm-${String(g)}-${String(k)}`,
          namespace: nsOf(g),
          labels: { group: `g${String(g)}` },
          annotations: {},
        },
        data: { k: 'v' },
      });
  for (let k = 0; k < 3; k++)
    api.add(CONFIGMAPS, {
      metadata: {
        name: `b-${String(k)}`,
        namespace: 'tenant-b',
        labels: { group: 'b' },
        annotations: {},
      },
      data: { k: 'v' },
    });
  api.admit = (object) =>
    evaluate(store, { operation: 'UPDATE', namespace: identityOf(object).namespace, object })
      .patched;

  let statusWrites = 0;
  let events = 0;
  const completedAt = new Map<string, number>();
  const reporter: RuleReporter = {
    patchStatus: (namespace, name, status) => {
      statusWrites++;
      const key = `${namespace}/${name}`;
      const obj = objects.get(key);
      if (obj !== undefined) objects.set(key, { ...obj, status });
      if (JSON.stringify(status).includes('"phase":"Completed"')) completedAt.set(key, Date.now());
      return Promise.resolve();
    },
    event: () => {
      events++;
      return Promise.resolve();
    },
  };
  const gate: ApplyGate = {
    enabled: () => Promise.resolve({ allowed: true }),
    accessFor: () => ({
      mayList: () => Promise.resolve(true),
      mayUpdate: () => Promise.resolve(true),
      confirmUpdate: () => Promise.resolve(true),
    }),
  };
  const writes = { a: 0, b: 0, firstB: undefined as number | undefined };
  api.onUpdate = (object) => {
    if (identityOf(object).namespace?.startsWith('tenant-a') === true) writes.a++;
    else {
      writes.b++;
      writes.firstB ??= Date.now();
    }
  };

  const controller = createApplyExistingController({
    api,
    reporter,
    store: () => store,
    ruleObject: (key) => objects.get(key),
    ruleObjects: () => [...objects.values()],
    namespaces: () => new Map(),
    targets: async () => (await discoverTargets(api, DEFAULT_DRAGNET_RULES)).targets,
    evaluate: (object) =>
      evaluate(store, { operation: 'UPDATE', namespace: identityOf(object).namespace, object }),
    gate,
    isLeader: () => true,
    scheduling: settings,
    pageSize: 50,
    metrics: registerAuditMetrics(createMetrics().registry, () => true),
    logger: createSilentLogger(),
    now: Date.now,
    delay: sleepWithSignal,
    yieldNow: () => new Promise((resolve) => setImmediate(resolve)),
  });

  global.gc?.();
  const heapLoaded = process.memoryUsage().heapUsed;
  let peakHeap = heapLoaded;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 250);
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();

  const start = Date.now();
  controller.resync();
  const queuedIn = Date.now() - start;
  await new Promise((resolve) => setTimeout(resolve, joinS * 1000));
  const aAtJoin = { writes: writes.a, jobs: completedAt.size };
  store.put(labelRule('tenant-b', 'b1', 'b'));
  objects.set('tenant-b/b1', ruleObject('tenant-b', 'b1'));
  const joined = Date.now();
  controller.consider('tenant-b/b1');
  const end = start + seconds * 1000;
  while (Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
  const aJobs = [...completedAt.keys()].filter((k) => k.startsWith('tenant-a')).length;
  const aWrites = writes.a;
  const running = controller.running;
  const queued = controller.queued;
  await controller.stop();
  lag.disable();
  clearInterval(sampler);
  const elapsed = (Date.now() - start) / 1000;
  const bDone = completedAt.get('tenant-b/b1');

  const ms = (n: number | undefined): string => (n === undefined ? 'never' : `${String(n)} ms`);
  console.log(
    `apply-to-existing fairness: ${String(rules)} annotated rules in ${spread === 1 ? 'tenant-a' : `${String(spread)} namespaces tenant-a*`} (${String(groups * 3)} ConfigMaps, 3 per rule), 1 in tenant-b after ${String(joinS)} s; API latency ${String(latencyMs)} ms; defaults: ${String(settings.ratePerSecond)}/s per namespace, ${String(settings.maxRatePerSecond)}/s in all, settle ${String(settings.settleMs)} ms`,
  );
  console.log(`  ${String(rules)} consider() calls: ${String(queuedIn)} ms`);
  console.log(
    `  tenant-b: first object updated ${ms(writes.firstB === undefined ? undefined : writes.firstB - joined)} after its rule appeared (settle ${String(settings.settleMs)} ms included); job completed ${ms(bDone === undefined ? undefined : bDone - joined)}; ${String(writes.b)} objects updated`,
  );
  console.log(
    `  tenant-a: ${String(aJobs)} jobs completed, ${String(aWrites)} objects updated in ${elapsed.toFixed(1)} s (${(aJobs / elapsed).toFixed(2)} jobs/s, ${(aWrites / elapsed).toFixed(2)} writes/s); at tenant-b's arrival: ${String(aAtJoin.jobs)} jobs, ${String(aAtJoin.writes)} writes; still queued at the end: ${String(queued)}, running: ${[...running.values()].join(', ')}`,
  );
  console.log(
    `  API calls: ${String(api.calls.discover)} discovery, ${String(api.calls.list)} list, ${String(api.calls.update)} update, ${String(api.calls.get)} get; ${String(statusWrites)} status writes, ${String(events)} Events`,
  );
  console.log(
    `  event-loop delay: p50 ${(lag.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms, max ${(lag.max / 1e6).toFixed(1)} ms`,
  );
  console.log(
    `  memory: heap ${mb(heapBefore)} MB before the rules, ${mb(heapLoaded)} MB with rules and objects loaded, peak ${mb(peakHeap)} MB during the run; peak RSS ${mb(peakRss)} MB`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
