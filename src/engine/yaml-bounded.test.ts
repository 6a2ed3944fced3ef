import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KubemodError } from '../errors/catalog.js';
import type { JsonValue } from './json.js';
import { loadModRules, parseDocuments } from './load-rules.js';
import { jsonEqual, parseYamlValue, toYaml } from './patch/index.js';
import { withMeter } from './active-meter.js';
import { WorkMeter } from './work-meter.js';
import { loadAllYamlBounded, loadYamlBounded } from './yaml-bounded.js';

/** `levels` anchors, each a list of `width` aliases of the previous one: width^levels nodes. */
function aliasBomb(levels: number, width = 10, indent = ''): string {
  const lines = [`${indent}a0: &a0 [${Array.from({ length: width }, () => 'lol').join(', ')}]`];
  for (let i = 1; i < levels; i++) {
    const aliases = Array.from({ length: width }, () => `*a${String(i - 1)}`).join(', ');
    lines.push(`${indent}a${String(i)}: &a${String(i)} [${aliases}]`);
  }
  return lines.join('\n') + '\n';
}

function kindOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (err) {
    return err instanceof KubemodError ? err.kind : `not a KubemodError: ${String(err)}`;
  }
  return undefined;
}

/** A value nested `depth` levels deep, built iteratively. */
function nested(depth: number, leaf: JsonValue): JsonValue {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { k: value } : [value];
  return value;
}

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

describe('loadYamlBounded', () => {
  it('expands aliases into independent copies', () => {
    const doc = loadYamlBounded('a: &x {l: [1, 2]}\nb: *x\n') as {
      a: { l: number[] };
      b: { l: number[] };
    };
    expect(doc).toEqual({ a: { l: [1, 2] }, b: { l: [1, 2] } });
    expect(doc.a).not.toBe(doc.b);
    expect(doc.a.l).not.toBe(doc.b.l);
  });

  it('keeps __proto__ members as own members when copying', () => {
    const doc = loadYamlBounded('a: &x {__proto__: 1, b: 2}\nc: *x\n') as Record<
      string,
      Record<string, unknown>
    >;
    const copy = doc.c as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it('refuses an alias bomb quickly, with little memory', () => {
    for (const levels of [6, 9, 12]) {
      const text = aliasBomb(levels);
      const heap = process.memoryUsage().heapUsed;
      const { value: kind, ms } = timed(() => kindOf(() => loadAllYamlBounded(text)));
      expect(kind).toBe('YAML_LIMIT');
      expect(ms).toBeLessThan(200);
      expect(process.memoryUsage().heapUsed - heap).toBeLessThan(64 * 1024 * 1024);
    }
  });

  it('accepts modest alias use', () => {
    expect(loadYamlBounded(aliasBomb(3))).toMatchObject({ a2: expect.any(Array) as unknown });
  });

  it('never refuses a text without aliases for its size', () => {
    const text = `[${'1,'.repeat(200_000)}1]`;
    expect((loadYamlBounded(text) as number[]).length).toBe(200_001);
    const block = '-\n'.repeat(100_000);
    expect((loadYamlBounded(block) as null[]).length).toBe(100_000);
  });

  it('refuses nesting beyond MAX_VALUE_DEPTH, and deep parser recursion, with DEPTH_LIMIT', () => {
    expect(kindOf(() => loadYamlBounded('['.repeat(600) + ']'.repeat(600)))).toBe('DEPTH_LIMIT');
    for (const depth of [5_000, 200_000]) {
      const { value: kind, ms } = timed(() =>
        kindOf(() => loadYamlBounded('['.repeat(depth) + ']'.repeat(depth))),
      );
      expect(kind).toBe('DEPTH_LIMIT');
      expect(ms).toBeLessThan(500);
    }
    let expected: JsonValue = [];
    for (let i = 1; i < 400; i++) expected = [expected];
    expect(loadYamlBounded('['.repeat(400) + ']'.repeat(400))).toEqual(expected);
  });

  it('refuses depth built from aliases, and cycles', () => {
    const deep = '['.repeat(300) + ']'.repeat(300);
    const text = `a: &a ${deep}\nb: ${'['.repeat(300)}*a${']'.repeat(300)}\n`;
    expect(kindOf(() => loadYamlBounded(text))).toBe('DEPTH_LIMIT');
    expect(kindOf(() => loadYamlBounded('a: &a [*a]\n'))).toBe('DEPTH_LIMIT');
  });

  it('passes syntax errors through as js-yaml reports them', () => {
    expect(() => loadYamlBounded('a: [')).toThrow(/unexpected end|flow/i);
  });

  it('round-trips random JSON, deep values included', () => {
    const deepJson = fc
      .tuple(fc.integer({ min: 0, max: 500 }), fc.jsonValue({ maxDepth: 2 }))
      .map(([depth, leaf]) => nested(depth, leaf as JsonValue));
    const json = fc.oneof(fc.jsonValue({ maxDepth: 6 }) as fc.Arbitrary<JsonValue>, deepJson);
    fc.assert(
      fc.property(json, (value) => {
        // -0 reads back as 0 from YAML and JSON alike.
        const expected = JSON.parse(JSON.stringify(value)) as JsonValue;
        expect(jsonEqual(loadYamlBounded(toYaml(value)) as JsonValue, expected)).toBe(true);
        expect(jsonEqual(loadYamlBounded(JSON.stringify(value)) as JsonValue, expected)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('callers of loadYamlBounded', () => {
  it('refuses an alias bomb in a rules file by file name, quickly', () => {
    const text = [
      'apiVersion: api.kubemod.io/v1beta1',
      'kind: ModRule',
      'metadata: {name: r}',
      'spec:',
      '  type: Patch',
      '  match: [{select: $.kind}]',
      '  patch: [{op: add, path: /metadata/labels/a, value: x}]',
      '  x:',
      aliasBomb(9, 10, '    '),
    ].join('\n');
    const { value: loaded, ms } = timed(() =>
      loadModRules(text, 'rules.yaml', { defaultNamespace: 'default' }),
    );
    expect(ms).toBeLessThan(300);
    expect(loaded.rules).toEqual([]);
    expect(loaded.errors).toEqual([
      expect.stringMatching(/^rules\.yaml: YAML aliases expand to more than \d+ nodes/),
    ]);
  });

  it('names the file for a deep document', () => {
    const { errors } = parseDocuments('a: ' + '['.repeat(10_000), 'in.yaml');
    expect(errors).toEqual([expect.stringMatching(/^in\.yaml: YAML nests deeper than 512 levels/)]);
  });

  it('refuses an alias bomb in a patch value with YAML_LIMIT', () => {
    const { value: kind, ms } = timed(() => kindOf(() => parseYamlValue(aliasBomb(9))));
    expect(kind).toBe('YAML_LIMIT');
    expect(ms).toBeLessThan(200);
  });

  it('charges patch values to the active meter by size', () => {
    const meter = new WorkMeter();
    const before = meter.left;
    withMeter(meter, () => parseYamlValue(`v: ${'x'.repeat(64_000)}`));
    expect(before - meter.left).toBeGreaterThanOrEqual(1_000);
  });
});
