import { describe, expect, it } from 'vitest';
import { evaluate, type EvaluationResult } from '../evaluate.js';
import type { JsonObject } from '../json.js';
import { RuleStore } from '../store.js';
import { makeRule } from '../test-rules.js';
import type { ClusterView, LookupAnswer } from './cluster-view.js';
import { clusterFromDocuments } from './cluster-documents.js';
import { MAX_LOOKUPS_PER_REQUEST } from './lookup-session.js';

const owner = (kind: string, name: string, apiVersion = 'apps/v1'): JsonObject => ({
  apiVersion,
  kind,
  name,
  uid: `${name}-uid`,
  controller: true,
});

const objects: JsonObject[] = [
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cfg', namespace: 'a' },
    data: { tier: 'gold', images: 'nginx:1.25 busybox:1' },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'secret-ish', namespace: 'b' },
    data: { k: 'other-ns' },
  },
  { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { zone: 'z1' } } },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'a', labels: { team: 'blue' } },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'web-1',
      namespace: 'a',
      labels: { rs: 'yes' },
      ownerReferences: [owner('Deployment', 'web')],
    },
  },
  {
    kind: 'ExternalDataAnswers',
    provider: 'registry',
    answers: [
      { key: 'nginx', value: { ok: true } },
      { key: 'down', error: 'timeout' },
    ],
  },
];

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-1-x',
    namespace: 'a',
    annotations: {},
    ownerReferences: [owner('ReplicaSet', 'web-1')],
  },
  spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] },
};

function run(
  namespace: string,
  value: string,
  cluster: ClusterView | 'none' = clusterFromDocuments(objects, 'test'),
): EvaluationResult {
  const store = new RuleStore();
  store.put(
    makeRule(namespace, 'r', {
      type: 'Patch',
      ...(namespace === 'kubemod-system' ? { targetNamespaceRegex: '.*' } : {}),
      match: [{ select: '$.kind', matchValue: 'Pod' }],
      patch: [{ op: 'add', path: '/metadata/annotations/x', value }],
    }),
  );
  return evaluate(store, {
    operation: 'CREATE',
    namespace: 'a',
    object: pod,
    cluster: cluster === 'none' ? undefined : cluster,
  });
}

function outcome(result: EvaluationResult): string {
  const failure = result.failures[0];
  if (failure !== undefined) return `${failure.code} ${failure.message}`;
  const annotations = (result.patched.metadata as JsonObject).annotations as JsonObject;
  return JSON.stringify(annotations.x);
}

describe('lookups in templates', () => {
  it.each([
    [
      'a ConfigMap of the rule namespace',
      'a',
      '{{ (lookup "v1" "ConfigMap" "a" "cfg").data.tier }}',
      'gold',
    ],
    [
      'an absent object reads as an empty map',
      'a',
      '{{ lookup "v1" "ConfigMap" "a" "nope" }}',
      'map[]',
    ],
    [
      'absent with default',
      'a',
      '{{ (lookup "v1" "ConfigMap" "a" "nope").data | default "none" }}',
      'none',
    ],
    [
      'another namespace, computed',
      'a',
      '{{ (lookup "v1" "ConfigMap" (print "b") "secret-ish").data.k }}',
      'KM5005 lookup v1/ConfigMap b/secret-ish: refused: a rule in namespace a reads only its own namespace (only rules in kubemod-system read others)',
    ],
    [
      'a cluster-scoped kind from a namespaced rule',
      'a',
      '{{ (lookup "v1" "Node" (print "") "n1").metadata.name }}',
      'KM5005 lookup v1/Node n1: refused: a rule in namespace a cannot read cluster-scoped Node objects (only rules in kubemod-system can)',
    ],
    [
      'kubemod-system reads other namespaces',
      'kubemod-system',
      '{{ (lookup "v1" "ConfigMap" "b" "secret-ish").data.k }}',
      'other-ns',
    ],
    [
      'kubemod-system reads cluster-scoped kinds',
      'kubemod-system',
      '{{ (lookup "v1" "Node" "" "n1").metadata.labels.zone }}',
      'z1',
    ],
    ['the apiVersion must match', 'a', '{{ lookup "apps/v1" "ConfigMap" "a" "cfg" }}', 'map[]'],
    ['no list form', 'a', '{{ lookup "v1" "ConfigMap" "a" "" }}', 'KM3002'],
    ['controller owner', 'a', '{{ (controllerOwner .Target).metadata.name }}', 'web-1'],
    [
      'owner chain',
      'a',
      '{{ range ownerChain .Target }}{{ .kind }};{{ end }}',
      'ReplicaSet;Deployment;',
    ],
    [
      'deployment labels through the chain',
      'a',
      '{{ (last (ownerChain .Target)).metadata.labels.team }}',
      'blue',
    ],
    ['external value', 'a', '{{ (external "registry" "nginx").ok }}', 'true'],
    ['external absent', 'a', '{{ external "registry" "other" }}', 'map[]'],
    [
      'external failure fails the rule',
      'a',
      '{{ external "registry" "down" }}',
      'KM5006 external registry down: unavailable: provider registry: timeout',
    ],
    [
      'externalOr default on failure',
      'a',
      '{{ externalOr "registry" "down" "fallback" }}',
      'fallback',
    ],
    [
      'externalOr on an undeclared provider',
      'a',
      '{{ externalOr "nobody" "k" "fallback" }}',
      'fallback',
    ],
    ['externalOr value', 'a', '{{ (externalOr "registry" "nginx" "fallback").ok }}', 'true'],
    [
      'a lookup result cannot be changed',
      'a',
      '{{ $c := lookup "v1" "ConfigMap" "a" "cfg" }}{{ $_ := set $c "data" "x" }}{{ $_ := set $c.data "tier" "lead" }}{{ $_ := unset $c.data "tier" }}{{ $_ := merge $c.data (dict "tier" "x") }}{{ (lookup "v1" "ConfigMap" "a" "cfg").data.tier }}',
      'gold',
    ],
  ])('%s', (_name, namespace, template, expected) => {
    expect(outcome(run(namespace, template))).toContain(expected);
  });

  it('fails, naming the lookup, when no cluster state was given', () => {
    const result = run('a', '{{ lookup "v1" "ConfigMap" "a" "cfg" }}', 'none');
    expect(result.failures).toEqual([
      expect.objectContaining({ rule: 'a/r', code: 'KM5006', field: 'spec.patch[0].value' }),
    ]);
    expect(result.failures[0]?.message).toContain(
      'lookup v1/ConfigMap a/cfg: unavailable: no cluster state was given',
    );
  });

  it('collects pending asks, deduplicated and sorted, and fails the rule as not resolved', () => {
    const asked: string[] = [];
    const pendingView: ClusterView = {
      get: (_asker, key): LookupAnswer => {
        asked.push(key.name);
        return { kind: 'pending' };
      },
      external: (): LookupAnswer => ({ kind: 'pending' }),
    };
    const result = run(
      'a',
      '{{ lookup "v1" "ConfigMap" "a" "z" }}{{ lookup "v1" "ConfigMap" "a" "y" }}{{ lookup "v1" "ConfigMap" "a" "z" }}',
      pendingView,
    );
    // A pending lookup reads as {} meanwhile, so one evaluation collects every ask (memoised).
    expect(asked).toEqual(['z', 'y']);
    expect(result.pending.map((p) => (p.type === 'object' ? p.key.name : p.key))).toEqual([
      'y',
      'z',
    ]);
    expect(result.failures[0]).toMatchObject({ code: 'KM5007' });
  });

  it('memoises per request: the view is asked once per rule and key', () => {
    let asks = 0;
    const view = clusterFromDocuments(objects, 'test');
    const counting: ClusterView = {
      get: (asker, key) => {
        asks += 1;
        return view.get(asker, key);
      },
      external: (asker, p, k) => view.external(asker, p, k),
    };
    const result = run(
      'a',
      '{{ range until 50 }}{{ (lookup "v1" "ConfigMap" "a" "cfg").data.tier }}{{ end }}',
      counting,
    );
    expect(result.failures).toEqual([]);
    expect(asks).toBe(1);
  });

  it('bounds a render that makes many distinct lookups by its work units', () => {
    const result = run(
      'a',
      `{{ range $i := until ${String(MAX_LOOKUPS_PER_REQUEST)} }}{{ lookup "v1" "ConfigMap" "a" (print $i) }}{{ end }}`,
    );
    expect(result.failures[0]).toMatchObject({ code: 'KM5002' });
  });

  it('stops a request that makes more than MAX_LOOKUPS_PER_REQUEST distinct lookups', () => {
    const store = new RuleStore();
    for (let r = 0; r < 4; r++) {
      const from = r * 300;
      store.put(
        makeRule('a', `r${String(r)}`, {
          type: 'Patch',
          match: [{ select: '$.kind', matchValue: 'Pod' }],
          patch: [
            {
              op: 'add',
              path: `/metadata/annotations/r${String(r)}`,
              value: `{{ range $i := until 300 }}{{ $_ := lookup "v1" "ConfigMap" "a" (print (add $i ${String(from)})) }}{{ end }}ok`,
            },
          ],
        }),
      );
    }
    const cluster = clusterFromDocuments(objects, 'test');
    const result = evaluate(store, { operation: 'CREATE', namespace: 'a', object: pod, cluster });
    expect(result.applied.map((a) => a.name)).toEqual(['r0', 'r1', 'r2']);
    expect(result.failures).toEqual([expect.objectContaining({ rule: 'a/r3', code: 'KM5008' })]);
  });
});
