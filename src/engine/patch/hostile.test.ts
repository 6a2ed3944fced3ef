import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KubemodError } from '../../errors/catalog.js';
import type { JsonObject, JsonValue } from '../json.js';
import { withMeter } from '../active-meter.js';
import { WorkMeter } from '../work-meter.js';
import { applyOperation } from './apply-operation.js';
import { createJsonPatch, jsonEqual } from './json-diff.js';
import { parseJsonPointer } from './json-pointer.js';
import { cloneJson } from './own-property.js';
import { compilePath } from './placeholders.js';
import { unifiedYamlDiff } from './yaml-diff.js';

/** `{k: {k: … leaf}}`, `depth` levels, built iteratively. */
function deepObject(depth: number, leaf: JsonValue): JsonValue {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { k: value };
  return value;
}

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

function applyAll(doc: JsonValue, ops: ReturnType<typeof createJsonPatch>): JsonValue {
  let out = cloneJson(doc);
  for (const op of ops) out = applyOperation(out, op);
  return out;
}

describe('unifiedYamlDiff on hostile objects', () => {
  it('omits the diff of objects nested deeper than 512 levels, quickly', () => {
    for (const depth of [1_500, 5_000, 100_000]) {
      const { value: diff, ms } = timed(() =>
        unifiedYamlDiff(deepObject(depth, 1), deepObject(depth, 2)),
      );
      expect(diff).toBe('# diff omitted: the object nests deeper than 512 levels\n');
      expect(ms).toBeLessThan(500);
    }
  });

  it('diffs an object 500 levels deep in bounded time', () => {
    const { value: diff, ms } = timed(() =>
      unifiedYamlDiff(deepObject(500, 1), deepObject(500, 2)),
    );
    expect(ms).toBeLessThan(500);
    expect(diff).toContain(`\n-${'  '.repeat(499)}k: 1\n+${'  '.repeat(499)}k: 2\n`);
  });

  it('diffs 20,000 changed array items in bounded time, as one hunk', () => {
    const before = Array.from({ length: 20_000 }, (_, i) => `item-${String(i)}`);
    const after = before.map((item) => `${item}x`);
    const { value: diff, ms } = timed(() =>
      unifiedYamlDiff({ kind: 'A', items: before, z: 1 }, { kind: 'A', items: after, z: 1 }),
    );
    expect(ms).toBeLessThan(500);
    const lines = diff.split('\n');
    expect(lines.slice(0, 5)).toEqual([
      'Index: object',
      '===================================================================',
      '--- object\tbefore',
      '+++ object\tafter',
      '@@ -1,20003 +1,20003 @@',
    ]);
    expect(lines.filter((line) => line.startsWith('-  - item-')).length).toBe(20_000);
    expect(lines.filter((line) => line.startsWith('+  - item-')).length).toBe(20_000);
  });

  it('omits renderings larger than 2 MiB or 100,000 lines', () => {
    const message = "# diff omitted: the object's YAML is larger than 2 MiB or 100000 lines\n";
    const big = { data: Array.from({ length: 3_000 }, () => 'x'.repeat(1_000)) };
    const { value: diff, ms } = timed(() => unifiedYamlDiff(big, { data: [] }));
    expect(diff).toBe(message);
    expect(ms).toBeLessThan(500);
    const long = { data: Array.from({ length: 150_000 }, (_, i) => i) };
    expect(unifiedYamlDiff({ data: [] }, long)).toBe(message);
  });

  it('diffs the largest renderings accepted in bounded time', () => {
    const before = Array.from({ length: 99_000 }, (_, i) => `i${String(i)}`);
    const after = before.map((item) => `${item}x`);
    const { value: diff, ms } = timed(() => unifiedYamlDiff({ a: before }, { a: after }));
    expect(diff).toContain('@@ -1,99001 +1,99001 @@');
    expect(ms).toBeLessThan(1_500);
  });

  it('stops at the work budget of the active meter', () => {
    const before = Array.from({ length: 20_000 }, (_, i) => String(i));
    const meter = new WorkMeter({ requestUnits: 1_000 });
    expect(() =>
      withMeter(meter, () => unifiedYamlDiff({ a: before }, { a: before.slice(1) })),
    ).toThrow(expect.objectContaining({ kind: 'WORK_LIMIT' }) as Error);
  });

  it('still diffs small changes of large objects line by line', () => {
    const items = Array.from({ length: 5_000 }, (_, i) => ({ name: `n${String(i)}`, v: i }));
    const after = items.map((item, i) => (i === 2_500 ? { ...item, v: -1 } : item));
    const diff = unifiedYamlDiff({ items }, { items: after });
    expect(diff).toMatch(/\n@@ -\d+,7 \+\d+,7 @@\n/);
    expect(diff).toContain('\n-    v: 2500\n+    v: -1\n');
  });
});

describe('JSON patches of hostile objects', () => {
  it('diffs objects nested far deeper than the stack allows', () => {
    for (const depth of [1_500, 20_000]) {
      const before = deepObject(depth, 1);
      const after = deepObject(depth, 2);
      const { value: ops, ms } = timed(() => createJsonPatch(before, after));
      expect(ms).toBeLessThan(500);
      expect(ops).toHaveLength(1);
      // Below MAX_VALUE_DEPTH the differing subtree is replaced whole.
      expect(parseJsonPointer(ops[0]?.path ?? '').length).toBe(Math.min(depth, 512));
      expect(jsonEqual(applyAll(before, ops), after)).toBe(true);
    }
  });

  it('compares and copies values of any depth without recursion', () => {
    const a = deepObject(100_000, [1, 2]);
    expect(jsonEqual(a, deepObject(100_000, [1, 2]))).toBe(true);
    expect(jsonEqual(a, deepObject(100_000, [1, 3]))).toBe(false);
    expect(jsonEqual(cloneJson(a), a)).toBe(true);
  });

  it('applies paths thousands of segments long, charged to the meter', () => {
    const path = '/k'.repeat(10_000);
    const doc = applyOperation({}, { op: 'add', path, value: 1 });
    expect(jsonEqual(doc, deepObject(10_000, 1))).toBe(true);
    const meter = new WorkMeter({ requestUnits: 1_000 });
    expect(() => withMeter(meter, () => applyOperation({}, { op: 'add', path, value: 1 }))).toThrow(
      expect.objectContaining({ kind: 'WORK_LIMIT' }) as Error,
    );
  });

  it('charges placeholder paths filled from long captures', () => {
    const compiled = compilePath('/spec/#0/x');
    const keys = [Array.from({ length: 5_000 }, () => 'seg').join('/')];
    const meter = new WorkMeter();
    const before = meter.left;
    const rendered = withMeter(meter, () => compiled.render(keys));
    expect(rendered.length).toBeGreaterThan(20_000);
    expect(before - meter.left).toBeGreaterThan(rendered.length / 64);
  });

  it('charges array splices by the elements moved', () => {
    const doc = { a: Array.from({ length: 100_000 }, (_, i) => i) };
    const meter = new WorkMeter({ requestUnits: 1_000 });
    expect(() => {
      withMeter(meter, () => {
        for (let i = 0; i < 100; i++) applyOperation(doc, { op: 'remove', path: '/a/0' });
      });
    }).toThrow(KubemodError);
  });

  it('createJsonPatch(a, b) applied to a gives b, deep values included', () => {
    const json = fc.jsonValue({ maxDepth: 5 }) as fc.Arbitrary<JsonValue>;
    const deep = fc
      .tuple(fc.integer({ min: 400, max: 700 }), json, json)
      .map(([depth, x, y]): [JsonValue, JsonValue] => [
        deepObject(depth, x),
        deepObject(depth - (depth % 3), y),
      ]);
    fc.assert(
      fc.property(fc.oneof(fc.tuple(json, json), deep), ([a, b]) => {
        const ops = createJsonPatch(a, b, { ignoredPaths: [] });
        expect(jsonEqual(applyAll(a, ops), b)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('__proto__ members', () => {
  const data = JSON.parse('{"__proto__": "x", "a": "b"}') as JsonObject;

  it('diffs, adds, replaces and removes the own member', () => {
    const before: JsonObject = { data };
    const added = applyOperation(cloneJson(before), {
      op: 'add',
      path: '/data/__proto__',
      value: 'y',
    }) as JsonObject;
    expect(Object.getPrototypeOf(added.data)).toBe(Object.prototype);
    expect(createJsonPatch(before, added)).toEqual([
      { op: 'replace', path: '/data/__proto__', value: 'y' },
    ]);
    const removed = applyOperation(cloneJson(before), { op: 'remove', path: '/data/__proto__' });
    expect(createJsonPatch(before, removed)).toEqual([{ op: 'remove', path: '/data/__proto__' }]);
    expect(createJsonPatch(before, cloneJson(before))).toEqual([]);
  });
});
