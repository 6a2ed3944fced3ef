/**
 * Lookups from the operator's watch caches (issue 35; docs/lookups-operator.md), in process:
 *
 *   npm run bench:lookups
 *
 * Caches of 10,000 ReplicaSets (metadata only), 2,000 Deployments and 5,000 ConfigMaps are filled
 * through the real informer and compaction code from generated lists; access reviews are answered
 * by a counting stand-in for the API server (every review is one request). Prints the cost of one
 * lookup from cache, admission latency (evaluate, p50/p99) with 100 lookup-using rules against 100
 * equivalent rules without lookups and against no rules, the API requests per admission in steady
 * state (the target is 0), and the heap the caches take. The operator's RSS and time to ready with
 * the same objects on a real control plane: bench/lookups-operator-load.ts.
 */
import type { AskingRule, ObjectKey } from '../src/engine/cluster/cluster-view.js';
import { evaluateWithLookups } from '../src/engine/cluster/resolve-loop.js';
import { cachingCompilers } from '../src/engine/compilers.js';
import { evaluate, type EvaluationRequest } from '../src/engine/evaluate.js';
import type { JsonObject } from '../src/engine/json.js';
import { loadModRules } from '../src/engine/load-rules.js';
import { RuleStore } from '../src/engine/store.js';
import type { KubeObject, ListWatch } from '../src/kube/informer.js';
import {
  createKubeClusterView,
  createLookupResolver,
} from '../src/controller/lookup-caches/kube-cluster-view.js';
import { createLookupCaches } from '../src/controller/lookup-caches/lookup-caches.js';
import { parseLookupKinds } from '../src/controller/lookup-caches/lookup-kinds.js';
import { createLookupReviewer } from '../src/controller/lookup-caches/lookup-reviewer.js';
import { createReadPlanner } from '../src/controller/lookup-caches/read-plan.js';
import { ReviewCache } from '../src/controller/lookup-caches/review-cache.js';
import { createSilentLogger } from '../src/observability/logger.js';
import { environment, formatTable, measure, measurePerCall, type Stats } from './lib/measure.js';
import { lookupObjects } from './lib/lookup-objects.js';

const CLUSTER_NAMESPACE = 'kubemod-system';

function rulesYaml(count: number, withLookups: boolean, namespace = 'team-0'): string {
  const docs: string[] = [];
  for (let i = 0; i < count; i++) {
    const value = !withLookups
      ? `"{{ .Target.metadata.name }}-${String(i)}"`
      : i % 2 === 0
        ? `{{ (lookup "v1" "ConfigMap" "team-0" "settings-${String(i % 50)}").data.value }}`
        : '{{ (index (ownerChain .Target) 1).metadata.labels.app }}';
    docs.push(
      [
        'apiVersion: api.kubemod.io/v1beta1',
        'kind: ModRule',
        'metadata:',
        `  name: rule-${String(i)}`,
        `  namespace: ${namespace}`,
        'spec:',
        '  type: Patch',
        '  match:',
        "    - select: '$.kind'",
        '      matchValue: Pod',
        '  patch:',
        '    - op: add',
        `      path: /metadata/annotations/r${String(i)}`,
        `      value: '${value}'`,
      ].join('\n'),
    );
  }
  return docs.join('\n---\n');
}

function storeOf(count: number, withLookups: boolean, plainIn?: string): RuleStore {
  const store = new RuleStore({ clusterNamespace: CLUSTER_NAMESPACE });
  const yaml = [rulesYaml(count, withLookups)];
  // `plainIn`: 100 rules without lookups in that namespace besides (the ordinary requests' rules).
  if (plainIn !== undefined) yaml.push(rulesYaml(100, false, plainIn));
  const loaded = loadModRules(yaml.filter((y) => y !== '').join('\n---\n'), 'bench', {
    defaultNamespace: 'team-0',
    clusterNamespace: CLUSTER_NAMESPACE,
    compilers: cachingCompilers(),
  });
  if (loaded.errors.length > 0) throw new Error(loaded.errors.join('\n'));
  for (const rule of loaded.rules) store.put(rule);
  return store;
}

async function main(): Promise<void> {
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let objects: Record<string, KubeObject[]> = lookupObjects();
  const caches = createLookupCaches({
    client: undefined as never,
    kinds: parseLookupKinds(undefined),
    logger: createSilentLogger(),
    delay: () => Promise.resolve(),
    mayWatch: () => Promise.resolve(true),
    listWatch: (kind): ListWatch => ({
      list: (onPage): Promise<string> => {
        const items: KubeObject[] = objects[kind.kind] ?? [];
        for (let i = 0; i < items.length; i += 100) onPage(items.slice(i, i + 100));
        return Promise.resolve('1');
      },
      watch: () => ({ stop: () => undefined, done: new Promise(() => undefined) }),
    }),
  });
  const t0 = performance.now();
  await caches.waitForSync();
  const fillMs = performance.now() - t0;
  objects = {};
  globalThis.gc?.();
  const cacheHeapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;

  let requests = 0;
  const reviews = new ReviewCache({ now: Date.now });
  const planner = createReadPlanner({
    caches,
    clusterNamespace: CLUSTER_NAMESPACE,
    authorOf: () => AUTHOR,
  });
  const runner = createLookupReviewer({
    ask: () => {
      requests++;
      return Promise.resolve(true);
    },
    cache: reviews,
    logger: createSilentLogger(),
    now: Date.now,
    delay: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ratePerSecond: 10_000,
    burst: 10_000,
  });
  const view = createKubeClusterView({ planner, reviews, runner });
  const resolver = createLookupResolver({
    planner,
    runner,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });

  const asker: AskingRule = { namespace: 'team-0', name: 'rule-0' };
  const key: ObjectKey = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: 'team-0',
    name: 'settings-1',
  };
  await resolver.resolve([{ type: 'object', asker, key }], 1000);
  const lookupRow = measure(
    'one lookup from cache (ClusterView.get, review cached)',
    () => view.get(asker, key),
    { batch: 1000, samples: 500 },
  );

  const pod = podOf('team-0');
  const request = (): EvaluationRequest => ({
    operation: 'CREATE',
    namespace: 'team-0',
    object: pod,
    cluster: view,
  });
  const stores = {
    none: storeOf(0, false),
    plain: storeOf(100, false),
    lookups: storeOf(100, true),
  };
  // First admission: every review is pending once, resolved, then cached.
  const first = await evaluateWithLookups(() => evaluate(stores.lookups, request()), resolver);
  if (first.failures.length > 0) throw new Error(JSON.stringify(first.failures.slice(0, 3)));
  const warmRequests = requests;
  const rows = (['none', 'plain', 'lookups'] as const).map((name) => {
    return measurePerCall(
      {
        none: 'admission, no rules',
        plain: 'admission, 100 rules without lookups',
        lookups: 'admission, 100 lookup-using rules',
      }[name],
      () => {
        const result = evaluate(stores[name], request());
        if (result.pending.length > 0 || result.failures.length > 0)
          throw new Error('steady state should neither wait nor fail');
      },
      { maxSamples: 5000, maxMs: 5000 },
    );
  });
  const admissions = rows[2]?.iterations ?? 0;

  // Issue 38 item 4: an ordinary request (a Pod in team-1, whose 100 rules use no lookups) with
  // and without 100 lookup-using rules in the store (in team-0), the cluster view attached as in
  // the operator; measured alternately, in rounds, so that both see the same machine.
  const ordinary = (): EvaluationRequest => ({
    operation: 'CREATE',
    namespace: 'team-1',
    object: podOf('team-1'),
    cluster: view,
  });
  const withoutLookups = storeOf(0, false, 'team-1');
  const withLookups = storeOf(100, true, 'team-1');
  const ordinaryRows = alternate(
    [
      ['ordinary admission (team-1), no lookup-using rules loaded', withoutLookups],
      ['ordinary admission (team-1), 100 lookup-using rules loaded (team-0)', withLookups],
    ],
    ordinary,
  );
  const steadyRequests = requests - warmRequests;

  console.log(`# lookups bench — ${environment()}`);
  console.log(
    `caches: ${JSON.stringify(caches.sizes())} filled in ${fillMs.toFixed(0)} ms, heap ${cacheHeapMb.toFixed(1)} MiB`,
  );
  console.log(formatTable([lookupRow, ...rows, ...ordinaryRows]));
  console.log(
    `API requests: ${String(warmRequests)} access reviews for the first admission (one per distinct object read), then ${String(steadyRequests)} in ${String(admissions)} admissions = ${(steadyRequests / Math.max(1, admissions)).toFixed(4)} per admission`,
  );
}

/** measurePerCall of each store in turn, 5 rounds; per store, the round with the median p99. */
function alternate(
  stores: readonly (readonly [string, RuleStore])[],
  request: () => EvaluationRequest,
): Stats[] {
  const rounds = stores.map(() => [] as Stats[]);
  for (let round = 0; round < 5; round++) {
    stores.forEach(([name, store], i) => {
      rounds[i]?.push(
        measurePerCall(
          name,
          () => {
            const result = evaluate(store, request());
            if (result.pending.length > 0 || result.failures.length > 0)
              throw new Error('an ordinary request should neither wait nor fail');
          },
          { maxSamples: 2000, maxMs: 2000 },
        ),
      );
    });
  }
  // The median round by p99 (one slow round from the machine does not decide the row).
  return rounds.map((stats) => {
    const sorted = [...stats].sort((a, b) => a.p99Us - b.p99Us);
    const middle = sorted[Math.floor(sorted.length / 2)];
    if (middle === undefined) throw new Error('no rounds');
    return { ...middle, name: `${middle.name} (median of 5 rounds by p99)` };
  });
}

const AUTHOR = {
  known: true as const,
  user: { username: 'bench', uid: undefined, groups: [], extra: {} },
  key: 'bench',
};

function podOf(namespace: string): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-0-abcde',
      namespace,
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-0-rs-0',
          controller: true,
          uid: 'u',
        },
      ],
    },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  };
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
