import { describe, expect, it } from 'vitest';
import { verdictOf } from '../audit/run/object-verdict.js';
import type { TargetResource } from '../kube/target-resources.js';
import { evaluate } from '../engine/evaluate.js';
import type { JsonObject } from '../engine/json.js';
import { RuleStore } from '../engine/store.js';
import { makeRule } from '../engine/test-rules.js';
import { createReportCollector, type ReportCollectorOptions } from './report-collector.js';

const CONFIGMAPS: TargetResource = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};
const NAMESPACES: TargetResource = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
};

function storeOf(): RuleStore {
  const store = new RuleStore();
  store.put(
    makeRule('shop', 'label', {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
      patch: [{ op: 'add', path: '/metadata/labels/team', value: 'x' }],
    }),
  );
  store.put(
    makeRule('kubemod-system', 'no-bad', {
      type: 'Reject',
      targetNamespaceRegex: '.*',
      match: [{ select: '$.metadata.labels.bad', matchValue: 'true' }],
    }),
  );
  // Not run on UPDATE: never reported.
  store.put(
    makeRule('shop', 'create-only', {
      type: 'Reject',
      admissionOperations: ['CREATE'],
      match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
    }),
  );
  return store;
}

async function collect(
  objects: readonly [JsonObject, TargetResource][],
  options: Partial<ReportCollectorOptions> = {},
): Promise<ReturnType<ReturnType<typeof createReportCollector>['collected']>> {
  const store = storeOf();
  const collector = createReportCollector({ store, enforcement: () => 'Enforce', ...options });
  for (const [object, target] of objects) {
    const namespace = target.kind === 'Namespace' ? undefined : 'shop';
    const result = evaluate(store, { operation: 'UPDATE', namespace, object });
    await collector.observe(object, target, result, verdictOf(result));
  }
  return collector.collected();
}

const cm = (name: string, labels: Record<string, string> = {}): JsonObject => ({
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop', labels },
});
const ns = (name: string): JsonObject => ({ kind: 'Namespace', metadata: { name } });

describe('createReportCollector', () => {
  it('reports each object against the rules an UPDATE of it runs', async () => {
    const { results, dropped } = await collect([
      [cm('a', { bad: 'true', team: 'x' }), CONFIGMAPS],
      [ns('shop'), NAMESPACES],
    ]);
    expect(dropped).toBe(0);
    expect(
      results
        .map(
          (r) =>
            `${r.subject.namespace ?? '-'}/${r.subject.name} ${r.policy} ${r.result} in ${r.reportNamespace ?? 'cluster report'}`,
        )
        .sort(),
    ).toEqual([
      // A cluster-wide rule's results are the cluster report's, whatever namespace the object is
      // in: readers of the namespace's report (`view`) must not see an admin's findings.
      '-/shop kubemod-system/no-bad pass in cluster report',
      'shop/a kubemod-system/no-bad fail in cluster report',
      'shop/a shop/label pass in shop',
    ]);
  });

  it('leaves out rules whose results may not be reported for the collection', async () => {
    const asked: string[] = [];
    const { results } = await collect([[cm('a'), CONFIGMAPS]], {
      mayReport: (rule, target, namespace) => {
        asked.push(`${rule.key} ${target.resource} ${namespace ?? ''}`);
        return Promise.resolve(rule.key !== 'shop/label');
      },
    });
    expect(asked).toEqual(['kubemod-system/no-bad configmaps shop', 'shop/label configmaps shop']);
    expect(results.map((r) => r.policy)).toEqual(['kubemod-system/no-bad']);
  });

  it('keeps findings before passes and counts what it drops', async () => {
    const { results, dropped } = await collect(
      [
        [cm('a'), CONFIGMAPS],
        [cm('b'), CONFIGMAPS],
        [cm('c', { team: 'z', bad: 'true' }), CONFIGMAPS],
      ],
      { bounds: { maxFindings: 2, maxPasses: 1 } },
    );
    expect(results.map((r) => `${r.subject.name} ${r.policy} ${r.result}`)).toEqual([
      'a shop/label fail',
      'b shop/label fail',
      'a kubemod-system/no-bad pass',
    ]);
    expect(dropped).toBe(3);
  });

  it('does not let a namespace that comes first crowd the others out', async () => {
    // Tenant `aaa` (audited first) has 5 Reject rules and 10 objects that break them all: 50
    // findings; the whole audit keeps 12. `prod` has one rule and two objects.
    const store = new RuleStore();
    const reject = (ns: string, name: string): void => {
      store.put(
        makeRule(ns, name, {
          type: 'Reject',
          match: [{ select: '$.metadata.labels.bad', matchValue: 'true' }],
        }),
      );
    };
    for (let i = 0; i < 5; i++) reject('aaa', `r${String(i)}`);
    reject('prod', 'no-bad');
    const collector = createReportCollector({
      store,
      enforcement: () => 'Enforce',
      bounds: { maxFindings: 12, maxPasses: 4, maxPerNamespace: 6, maxPerRule: 2 },
    });
    const objects: JsonObject[] = [
      ...Array.from({ length: 10 }, (_, i) => inNs('aaa', `c${String(i)}`, { bad: 'true' })),
      inNs('aaa', 'fine'),
      inNs('prod', 'bad', { bad: 'true' }),
      inNs('prod', 'good'),
    ];
    for (const object of objects) {
      const namespace = (object.metadata as { namespace: string }).namespace;
      const result = evaluate(store, { operation: 'UPDATE', namespace, object });
      await collector.observe(object, CONFIGMAPS, result, verdictOf(result));
    }
    const { results, partial } = collector.collected();
    const of = (ns: string): string[] =>
      results
        .filter((r) => r.reportNamespace === ns)
        .map((r) => `${r.subject.name} ${r.rule} ${r.result}`);
    expect(of('prod')).toEqual(['bad no-bad fail', 'good no-bad pass']);
    // aaa keeps its share: 6 results, at most 2 per rule, findings rather than passes.
    const aaa = results.filter((r) => r.reportNamespace === 'aaa');
    expect(aaa).toHaveLength(6);
    expect(aaa.every((r) => r.result === 'fail')).toBe(true);
    const perRule = new Map<string, number>();
    for (const r of aaa) perRule.set(r.rule, (perRule.get(r.rule) ?? 0) + 1);
    expect(Math.max(...perRule.values())).toBeLessThanOrEqual(2);
    expect([...(partial ?? new Map<string, unknown>()).keys()]).toEqual(['aaa']);
    expect(partial?.get('aaa')).toEqual({ dropped: 49, reasons: ['namespace', 'rule'] });
  });
});

const inNs = (
  namespace: string,
  name: string,
  labels: Record<string, string> = {},
): JsonObject => ({
  kind: 'ConfigMap',
  metadata: { name, namespace, labels },
});
