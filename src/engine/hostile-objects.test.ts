import { describe, expect, it } from 'vitest';
import { evaluate } from './evaluate.js';
import type { JsonObject } from './json.js';
import { LAST_APPLIED_ANNOTATION } from './last-applied.js';
import { RuleStore } from './store.js';
import { makeRule } from './test-rules.js';

function storeWith(...patches: Record<string, unknown>[][]): RuleStore {
  const store = new RuleStore();
  patches.forEach((patch, i) => {
    store.put(
      makeRule('a', `r${String(i)}`, { type: 'Patch', match: [{ select: '$.kind' }], patch }),
    );
  });
  return store;
}

function configMap(): JsonObject {
  return JSON.parse(
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"a"},"data":{"__proto__":"x","a":"b"}}',
  ) as JsonObject;
}

const addLabel = [{ op: 'add', path: '/metadata/labels', value: 'team: a' }];

describe('objects with __proto__ members', () => {
  it('patches other fields without touching data.__proto__', () => {
    const result = evaluate(storeWith(addLabel, [{ op: 'add', path: '/data/c', value: 'd' }]), {
      operation: 'CREATE',
      namespace: 'a',
      object: configMap(),
    });
    expect(result.failures).toEqual([]);
    expect(result.patch).toEqual([
      { op: 'add', path: '/data/c', value: 'd' },
      { op: 'add', path: '/metadata/labels', value: { team: 'a' } },
    ]);
    const patchedData = result.patched.data as JsonObject;
    expect(Object.keys(patchedData)).toEqual(['__proto__', 'a', 'c']);
  });

  it.each([
    ['add', 'zz', [{ op: 'replace', path: '/data/__proto__', value: 'zz' }]],
    ['replace', 'zz', [{ op: 'replace', path: '/data/__proto__', value: 'zz' }]],
    ['remove', undefined, [{ op: 'remove', path: '/data/__proto__' }]],
  ])('%s /data/__proto__ works on the own member', (op, value, expected) => {
    const object = configMap();
    const result = evaluate(storeWith([{ op, path: '/data/__proto__', value }]), {
      operation: 'CREATE',
      namespace: 'a',
      object,
    });
    expect(result.failures).toEqual([]);
    expect(result.patch).toEqual(expected);
    const patchedData = result.patched.data as JsonObject;
    expect(Object.getPrototypeOf(patchedData)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(patchedData, '__proto__')).toBe(op !== 'remove');
    expect(object).toEqual(configMap());
  });

  it('copies on write a container reached through a __proto__ member', () => {
    const text = '{"kind":"ConfigMap","metadata":{"name":"c"},"data":{"__proto__":{"a":"b"}}}';
    const object = JSON.parse(text) as JsonObject;
    const result = evaluate(storeWith([{ op: 'add', path: '/data/__proto__/c', value: 'd' }]), {
      operation: 'CREATE',
      namespace: 'a',
      object,
    });
    expect(result.failures).toEqual([]);
    expect(result.patch).toEqual([{ op: 'add', path: '/data/__proto__/c', value: 'd' }]);
    const patchedData = result.patched.data as JsonObject;
    expect(Object.getPrototypeOf(patchedData)).toBe(Object.prototype);
    const member = Object.getOwnPropertyDescriptor(patchedData, '__proto__')?.value as JsonObject;
    expect({ ...member }).toEqual({ a: 'b', c: 'd' });
    expect(object).toEqual(JSON.parse(text));
  });

  it('copies on write a constructor/prototype member like any other', () => {
    const object = JSON.parse(
      '{"kind":"ConfigMap","metadata":{"name":"c"},"data":{"constructor":"k","prototype":"p"}}',
    ) as JsonObject;
    const result = evaluate(storeWith([{ op: 'add', path: '/data/constructor', value: 'z' }]), {
      operation: 'CREATE',
      namespace: 'a',
      object,
    });
    expect(result.patch).toEqual([{ op: 'replace', path: '/data/constructor', value: 'z' }]);
  });
});

describe('hostile last-applied-configuration annotations', () => {
  function withAnnotation(text: string): JsonObject {
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'a', annotations: { [LAST_APPLIED_ANNOTATION]: text } },
    };
  }

  it('leaves a deeply nested annotation alone and still answers the patch', () => {
    for (const depth of [600, 200_000]) {
      const text = `{"metadata":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      const started = performance.now();
      const result = evaluate(storeWith(addLabel), {
        operation: 'CREATE',
        namespace: 'a',
        object: withAnnotation(text),
      });
      expect(performance.now() - started).toBeLessThan(500);
      expect(result.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { team: 'a' } }]);
    }
  });

  it('leaves the annotation alone when a patch would nest it too deep', () => {
    const result = evaluate(
      storeWith([{ op: 'add', path: '/metadata' + '/k'.repeat(600), value: '1' }]),
      {
        operation: 'CREATE',
        namespace: 'a',
        object: withAnnotation('{"metadata":{"name":"c"}}'),
      },
    );
    expect(result.failures).toEqual([]);
    expect(result.patch).toHaveLength(1);
    expect(result.patch[0]?.path).toBe('/metadata/k');
  });

  it('still maintains an ordinary annotation', () => {
    const result = evaluate(storeWith(addLabel), {
      operation: 'CREATE',
      namespace: 'a',
      object: withAnnotation('{"kind":"ConfigMap","metadata":{"name":"c"}}\n'),
    });
    expect(result.patch).toContainEqual({
      op: 'replace',
      path: '/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration',
      value: '{"kind":"ConfigMap","metadata":{"labels":{"team":"a"},"name":"c"}}\n',
    });
  });
});
