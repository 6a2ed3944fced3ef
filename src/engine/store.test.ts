import { describe, expect, it } from 'vitest';
import { CANDIDATE_CACHE_ENTRIES, CANDIDATE_CACHE_RULE_REFS, RuleStore } from './store.js';
import { makeRule } from './test-rules.js';

const patch = [{ op: 'add', path: '/metadata/labels/x', value: 'y' }];
const kindRule = (
  ns: string,
  name: string,
  kind: string | string[],
  extra: Record<string, unknown> = {},
) =>
  makeRule(ns, name, {
    type: 'Patch',
    match: [
      Array.isArray(kind)
        ? { select: '$.kind', matchValues: kind }
        : { select: '$.kind', matchValue: kind },
    ],
    patch,
    ...extra,
  });
const anyRule = (ns: string, name: string, extra: Record<string, unknown> = {}) =>
  makeRule(ns, name, { type: 'Patch', match: [{ select: '$.metadata.name' }], patch, ...extra });
const keys = (
  store: RuleStore,
  namespace: string | undefined,
  kind: string,
  operation: 'CREATE' | 'UPDATE' | 'DELETE' = 'CREATE',
) => store.candidates({ namespace, kind, operation }).map((r) => r.key);

describe('rule store', () => {
  it('indexes rules by their literal $.kind so other kinds never see them', () => {
    const store = new RuleStore();
    store.put(kindRule('a', 'deploy', 'Deployment'));
    store.put(kindRule('a', 'workloads', ['Deployment', 'StatefulSet']));
    store.put(
      kindRule('a', 'negated', 'Deployment', {
        match: [{ select: '$.kind', matchValue: 'Deployment', negate: true }],
      }),
    );
    store.put(anyRule('a', 'any'));
    expect(keys(store, 'a', 'Deployment')).toEqual([
      'a/any',
      'a/deploy',
      'a/negated',
      'a/workloads',
    ]);
    expect(keys(store, 'a', 'StatefulSet')).toEqual(['a/any', 'a/negated', 'a/workloads']);
    expect(keys(store, 'a', 'Pod')).toEqual(['a/any', 'a/negated']);
  });

  it('orders candidates by tier, then cluster-wide before namespaced, then name', () => {
    const store = new RuleStore();
    store.put(anyRule('a', 'z', { executionTier: -1 }));
    store.put(anyRule('a', 'b', { executionTier: 2 }));
    store.put(kindRule('a', 'a', 'Pod', { executionTier: 2 }));
    store.put(anyRule('kubemod-system', 'c', { executionTier: 0, targetNamespaceRegex: '^a$' }));
    store.put(anyRule('kubemod-system', 'y', { executionTier: 2, targetNamespaceRegex: '.*' }));
    store.put(
      kindRule('kubemod-system', 'x', 'Pod', { executionTier: 2, targetNamespaceRegex: 'a' }),
    );
    store.put(anyRule('zz', 'a', { executionTier: 2 }));
    store.put(anyRule('kubemod-system', 'w', { executionTier: 2, targetNamespaceRegex: 'zz' }));
    expect(keys(store, 'a', 'Pod')).toEqual([
      'a/z',
      'kubemod-system/c',
      'kubemod-system/x',
      'kubemod-system/y',
      'a/a',
      'a/b',
    ]);
    expect(keys(store, 'zz', 'Pod')).toEqual(['kubemod-system/w', 'kubemod-system/y', 'zz/a']);
  });

  it('keeps namespaced rules to their namespace', () => {
    const store = new RuleStore();
    store.put(anyRule('a', 'r'));
    expect(keys(store, 'a', 'Pod')).toEqual(['a/r']);
    expect(keys(store, 'b', 'Pod')).toEqual([]);
    expect(keys(store, undefined, 'Namespace')).toEqual([]);
  });

  it('scopes kubemod-system rules by targetNamespaceRegex', () => {
    const store = new RuleStore();
    store.put(anyRule('kubemod-system', 'cluster-only'));
    store.put(anyRule('kubemod-system', 'empty-regex', { targetNamespaceRegex: '' }));
    store.put(anyRule('kubemod-system', 'teams', { targetNamespaceRegex: '^team-' }));
    store.put(anyRule('kubemod-system', 'all', { targetNamespaceRegex: '.*' }));
    store.put(anyRule('kubemod-system', 'unanchored', { targetNamespaceRegex: 'prod' }));
    expect(keys(store, undefined, 'ClusterRole')).toEqual([
      'kubemod-system/all',
      'kubemod-system/cluster-only',
      'kubemod-system/empty-regex',
    ]);
    expect(keys(store, 'team-a', 'Pod')).toEqual(['kubemod-system/all', 'kubemod-system/teams']);
    expect(keys(store, 'my-production', 'Pod')).toEqual([
      'kubemod-system/all',
      'kubemod-system/unanchored',
    ]);
    expect(keys(store, 'kubemod-system', 'Pod')).toEqual(['kubemod-system/all']);
  });

  it('filters by admission operation (default CREATE and UPDATE)', () => {
    const store = new RuleStore();
    store.put(anyRule('a', 'default'));
    store.put(anyRule('a', 'delete', { admissionOperations: ['DELETE'] }));
    expect(keys(store, 'a', 'Pod', 'CREATE')).toEqual(['a/default']);
    expect(keys(store, 'a', 'Pod', 'UPDATE')).toEqual(['a/default']);
    expect(keys(store, 'a', 'Pod', 'DELETE')).toEqual(['a/delete']);
  });

  it('replaces, deletes and counts rules, and refreshes cached cluster-wide scopes', () => {
    const store = new RuleStore();
    store.put(anyRule('a', 'r'));
    store.put(anyRule('a', 'r', { executionTier: 5 }));
    store.put(anyRule('kubemod-system', 'c', { targetNamespaceRegex: '.*' }));
    expect(store.size).toBe(2);
    expect(store.get('a', 'r')?.tier).toBe(5);
    expect(keys(store, 'a', 'Pod')).toEqual(['kubemod-system/c', 'a/r']);
    expect(store.delete('kubemod-system', 'c')).toBe(true);
    expect(keys(store, 'a', 'Pod')).toEqual(['a/r']);
    expect(store.delete('a', 'nope')).toBe(false);
    expect(Object.fromEntries(store.countsByNamespace())).toEqual({ a: 1 });
  });

  it('answers a repeated query from its cache until any rule changes', () => {
    const store = new RuleStore();
    store.put(kindRule('a', 'pods', 'Pod'));
    const first = store.candidates({ namespace: 'a', kind: 'Pod', operation: 'CREATE' });
    expect(store.candidates({ namespace: 'a', kind: 'Pod', operation: 'CREATE' })).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    // Namespace, kind and operation each make their own answer.
    expect(keys(store, 'b', 'Pod')).toEqual([]);
    expect(keys(store, 'a', 'Service')).toEqual([]);
    expect(keys(store, 'a', 'Pod', 'DELETE')).toEqual([]);
    store.put(anyRule('a', 'any'));
    expect(keys(store, 'a', 'Pod')).toEqual(['a/any', 'a/pods']);
    store.put(anyRule('kubemod-system', 'c', { targetNamespaceRegex: '^a$' }));
    expect(keys(store, 'a', 'Pod')).toEqual(['kubemod-system/c', 'a/any', 'a/pods']);
    store.delete('a', 'pods');
    expect(keys(store, 'a', 'Pod')).toEqual(['kubemod-system/c', 'a/any']);
    expect(keys(store, 'b', 'Pod')).toEqual([]);
  });

  it('groups the Patch rules of an answer into tiers, kept with the answer', () => {
    const store = new RuleStore();
    store.put(anyRule('a', 'low', { executionTier: -1 }));
    store.put(anyRule('a', 'p1', { executionTier: 2 }));
    store.put(
      makeRule('a', 'reject', { type: 'Reject', match: [{ select: '$.kind' }], executionTier: 2 }),
    );
    store.put(anyRule('a', 'p2', { executionTier: 2 }));
    store.put(anyRule('a', 'high', { executionTier: 5 }));
    const answer = store.candidates({ namespace: 'a', kind: 'Pod', operation: 'CREATE' });
    const tiers = store.patchTiers(answer);
    expect(tiers.map((tier) => tier.map((rule) => rule.key))).toEqual([
      ['a/low'],
      ['a/p1', 'a/p2'],
      ['a/high'],
    ]);
    expect(store.patchTiers(answer)).toBe(tiers);
    store.put(anyRule('a', 'p3', { executionTier: 5 }));
    const fresh = store.candidates({ namespace: 'a', kind: 'Pod', operation: 'CREATE' });
    expect(store.patchTiers(fresh).map((tier) => tier.length)).toEqual([1, 2, 2]);
  });

  it('keeps its cache within its entry bound', () => {
    const store = new RuleStore();
    store.put(kindRule('a', 'pods', 'Pod'));
    const first = store.candidates({ namespace: 'a', kind: 'Pod', operation: 'CREATE' });
    for (let i = 0; i < CANDIDATE_CACHE_ENTRIES; i++) {
      store.candidates({ namespace: `n${String(i)}`, kind: 'Pod', operation: 'CREATE' });
    }
    expect(store.candidates({ namespace: 'a', kind: 'Pod', operation: 'CREATE' })).not.toBe(first);
  });

  it('keeps its cache bounded whatever kinds and namespaces requests name', () => {
    const store = new RuleStore();
    for (let i = 0; i < 100; i++) {
      store.put(anyRule('kubemod-system', `c${String(i)}`, { targetNamespaceRegex: '.*' }));
    }
    store.put(anyRule('a', 'r'));
    // 101 rules per answer: the rule references, not the entries, reach their bound first.
    const perAnswer = 101;
    const answers = Math.floor(CANDIDATE_CACHE_RULE_REFS / perAnswer) + 10;
    const first = store.candidates({ namespace: 'a', kind: 'K0', operation: 'CREATE' });
    expect(first).toHaveLength(perAnswer);
    for (let i = 1; i < answers; i++) {
      store.candidates({ namespace: 'a', kind: `K${String(i)}`, operation: 'CREATE' });
    }
    // The first answer was dropped when the bound was reached: asked again, it is rebuilt.
    const again = store.candidates({ namespace: 'a', kind: 'K0', operation: 'CREATE' });
    expect(again).not.toBe(first);
    expect(again.map((r) => r.key)).toEqual(first.map((r) => r.key));
    // A kind too long to be a key is answered but not kept.
    const long = 'K'.repeat(600);
    const once = store.candidates({ namespace: 'a', kind: long, operation: 'CREATE' });
    expect(store.candidates({ namespace: 'a', kind: long, operation: 'CREATE' })).not.toBe(once);
  });

  it('uses a configurable cluster namespace', () => {
    const store = new RuleStore({ clusterNamespace: 'platform' });
    store.put(makeRule('platform', 'c', { type: 'Reject', match: [{ select: '$.kind' }] }));
    expect(keys(store, undefined, 'Namespace')).toEqual([]);
  });
});
