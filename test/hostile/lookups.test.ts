import { describe, expect, it } from 'vitest';
import { clusterFromDocuments } from '../../src/engine/cluster/cluster-documents.js';
import { evaluate, type EvaluationResult } from '../../src/engine/evaluate.js';
import type { JsonObject } from '../../src/engine/json.js';
import { RuleStore } from '../../src/engine/store.js';
import { makeRule } from '../../src/engine/test-rules.js';

// Hostile rules that read the cluster: many lookups, owner chains that loop or run deep, selects
// and paths rendered huge. Each is stopped by its work units (or a lookup bound) with a
// catalogued failure, quickly, and the other rules still apply.

const owner = (kind: string, name: string): JsonObject => ({
  apiVersion: 'apps/v1',
  kind,
  name,
  uid: name,
  controller: true,
});

/** ReplicaSets r0 → r1 → … → r39, and x ↔ y owning each other (a loop). */
const objects: JsonObject[] = [
  ...Array.from({ length: 40 }, (_, i) => ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `r${String(i)}`,
      namespace: 'a',
      ownerReferences: [owner('ReplicaSet', `r${String(i + 1)}`)],
    },
  })),
  {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'x', namespace: 'a', ownerReferences: [owner('ReplicaSet', 'y')] },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'y', namespace: 'a', ownerReferences: [owner('ReplicaSet', 'x')] },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'big', namespace: 'a' },
    data: { v: 'x'.repeat(500_000) },
  },
];
const cluster = clusterFromDocuments(objects, 'hostile');

const pod = (ownerName: string): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'p',
    namespace: 'a',
    labels: {},
    ownerReferences: [owner('ReplicaSet', ownerName)],
  },
  spec: { containers: [{ name: 'c', image: 'i' }] },
});

function run(
  patch: Record<string, unknown>,
  object = pod('r0'),
): { result: EvaluationResult; ms: number } {
  const store = new RuleStore();
  store.put(
    makeRule('a', 'hostile', { type: 'Patch', match: [{ select: '$.kind' }], patch: [patch] }),
  );
  store.put(
    makeRule('a', 'fine', {
      type: 'Patch',
      match: [{ select: '$.kind' }],
      patch: [{ op: 'add', path: '/metadata/labels/fine', value: 'yes' }],
    }),
  );
  const start = performance.now();
  const result = evaluate(store, { operation: 'CREATE', namespace: 'a', object, cluster });
  return { result, ms: performance.now() - start };
}

function expectStopped(result: EvaluationResult, codes: readonly string[]): void {
  expect(result.applied.map((a) => a.name)).toContain('fine');
  const failure = result.failures.find((f) => f.name === 'hostile');
  expect(codes).toContain(failure?.code);
}

describe('hostile lookups', () => {
  it('a loop of distinct lookups is stopped by work units', () => {
    const { result, ms } = run({
      op: 'add',
      path: '/metadata/labels/x',
      value: `{{ range $i := until 100000 }}{{ $_ := lookup "v1" "ConfigMap" "a" (print "n" $i) }}{{ end }}x`,
    });
    expectStopped(result, ['KM5002', 'KM5008', 'KM3003']);
    expect(ms).toBeLessThan(2_000);
  });

  it('a loop of the same lookup is memoised and bounded', () => {
    const { result, ms } = run({
      op: 'add',
      path: '/metadata/labels/x',
      value: `{{ range $i := until 100000 }}{{ $_ := lookup "v1" "ConfigMap" "a" "big" }}{{ end }}x`,
    });
    expectStopped(result, ['KM5002', 'KM3003']);
    expect(ms).toBeLessThan(2_000);
  });

  it.each([
    ['a deep chain', 'r0', 5],
    ['a loop of owners', 'x', 5],
  ])('ownerChain over %s stops at depth 5', (_what, start, depth) => {
    const { result } = run(
      { op: 'add', path: '/metadata/labels/n', value: '"{{ len (ownerChain .Target) }}"' },
      pod(start),
    );
    expect(result.failures).toEqual([]);
    expect(result.patch).toContainEqual({
      op: 'add',
      path: '/metadata/labels/n',
      value: String(depth),
    });
  });

  it('many owner chains in a loop are bounded', () => {
    const { result, ms } = run({
      op: 'add',
      path: '/metadata/labels/x',
      value: '{{ range until 100000 }}{{ $_ := ownerChain $.Target }}{{ end }}x',
    });
    expectStopped(result, ['KM5002', 'KM3003']);
    expect(ms).toBeLessThan(2_000);
  });

  it('a huge rendered select fails at its length cap', () => {
    const { result, ms } = run({
      op: 'add',
      select: '$.spec.containers[? @.name == "{{ (lookup "v1" "ConfigMap" "a" "big").data.v }}"]',
      path: '/metadata/labels/x',
      value: 'x',
    });
    expectStopped(result, ['KM1004']);
    expect(ms).toBeLessThan(2_000);
  });

  it('a path rendered per item of a wide select stays bounded', () => {
    const wide = pod('r0');
    (wide.spec as JsonObject).containers = Array.from({ length: 5_000 }, (_, i) => ({
      name: `c${String(i)}`,
    }));
    const { result, ms } = run(
      {
        op: 'add',
        select: '$.spec.containers[*]',
        path: '/metadata/labels/{{ .SelectedItem.name }}{{ range until 200 }}{{ lookup "v1" "ConfigMap" "a" "big" | len }}{{ end }}',
        value: 'x',
      },
      wide,
    );
    expectStopped(result, ['KM5002', 'KM1004', 'KM3003']);
    expect(ms).toBeLessThan(3_000);
  });
});
