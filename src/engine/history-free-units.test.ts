import { describe, expect, it } from 'vitest';
import { evaluate } from './evaluate.js';
import type { JsonObject } from './json.js';
import { loadModRules } from './load-rules.js';
import { RegexCache } from './regex.js';
import { RuleStore } from './store.js';
import { withMeter } from './active-meter.js';
import { WorkMeter } from './work-meter.js';

// Issue 27: units depend on the input alone. Caches kept across requests (compiled regexes,
// parsed patch values) must not make a request cheaper because another one came before it.

function spent(work: () => void): number {
  const meter = new WorkMeter();
  withMeter(meter, work);
  return 500_000 - meter.left;
}

const MIRROR = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: mirror, namespace: shop }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Deployment
  patch:
    - op: replace
      select: '$.spec.template.spec.containers[? @.image =~ "^bitnami/"].image'
      path: /spec/template/spec/containers/#0/image
      value: '{{ regexReplaceAll "^bitnami/(.*)" .SelectedItem "mirror.example.com/bitnami/\${1}" }}'
`;

function deployment(containers: number): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      template: {
        spec: {
          containers: Array.from({ length: containers }, (_, i) => ({
            name: `c${String(i)}`,
            image: `bitnami/app-${String(i)}:1.0`,
          })),
        },
      },
    },
  };
}

describe('units do not depend on the requests before', () => {
  it('charges a cached regex its compile cost once per request, hit or miss', () => {
    const cache = new RegexCache();
    const first = spent(() => {
      cache.get('^a(b|c)+$');
      cache.get('^a(b|c)+$');
    });
    const again = spent(() => {
      cache.get('^a(b|c)+$');
    });
    expect(first).toBeGreaterThan(0);
    expect(again).toBe(first);
  });

  it('spends the same units on a fresh rule as on one that has seen a hundred requests', () => {
    const object = deployment(30);
    const warm = storeOf(MIRROR);
    for (let i = 0; i < 100; i++) expect(failuresWith(warm, object, 200_000)).toBe(0);
    const needed = unitsNeeded(warm, object);
    // Freshly compiled: empty caches of parsed values, the request its first.
    expect(failuresWith(storeOf(MIRROR), object, needed)).toBe(0);
    expect(failuresWith(storeOf(MIRROR), object, needed - 1)).toBe(1);
  });
});

function storeOf(yaml: string): RuleStore {
  const loaded = loadModRules(yaml, 'test', { defaultNamespace: 'shop' });
  expect(loaded.errors).toEqual([]);
  const store = new RuleStore();
  for (const rule of loaded.rules) store.put(rule);
  return store;
}

/** Failed rules when each rule (and the namespace) may spend `units`. */
function failuresWith(store: RuleStore, object: JsonObject, units: number): number {
  const result = evaluate(store, {
    operation: 'CREATE',
    namespace: 'shop',
    object,
    work: { ruleUnits: units, namespaceUnits: units },
  });
  if (result.failures.length === 0) expect(result.patch).toHaveLength(30);
  return result.failures.length;
}

/** The fewest units the rule needs on `object` (the smallest budget it does not fail with). */
function unitsNeeded(store: RuleStore, object: JsonObject): number {
  let low = 1;
  let high = 200_000;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (failuresWith(store, object, mid) === 0) high = mid;
    else low = mid + 1;
  }
  return low;
}
