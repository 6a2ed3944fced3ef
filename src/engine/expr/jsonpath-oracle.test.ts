/**
 * The select language against jsonpath-plus as an oracle, on the subset both define alike: paths
 * of child keys (`.a`), non-negative indices (`[1]`) and wildcards (`[*]`, `.*`) over random JSON.
 * For every such select on an object, the values it yields (`items`, what a patch iterates over) are the values
 * jsonpath-plus returns, in the same order. Objects are built with their keys in sorted order,
 * because the select language visits map keys sorted (as KubeMod's Go code does) while
 * jsonpath-plus visits them in insertion order; keys are letters, so JavaScript keeps that order.
 *
 * What lies outside the subset is KubeMod's own and has no oracle here: expression filters and
 * operators, `#n` captures, negative indices, functions (see docs/decisions.md).
 */
import fc from 'fast-check';
import { JSONPath } from 'jsonpath-plus';
import { describe, expect, it } from 'vitest';
import { compileSelect } from './select.js';

const KEYS = ['a', 'b', 'c'] as const;

function sortedKeys(object: Record<string, unknown>): Record<string, unknown> {
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(object).sort()) sorted[key] = object[key];
  return sorted;
}

/**
 * Strings are empty: jsonpath-plus indexes into strings as JavaScript does (`"xy"[0]` is "x"),
 * where JSONPath (RFC 9535) and KubeMod select nothing (the last test pins that difference).
 */
const scalar = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constant(''),
  fc.boolean(),
  fc.constant(null),
);

/** Roots are objects, as Kubernetes objects are (jsonpath-plus answers nothing for a scalar root). */
const { object: jsonObject } = fc.letrec<{ value: unknown; array: unknown[]; object: object }>(
  (tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      tie('array'),
      tie('object'),
    ),
    array: fc.array(tie('value'), { maxLength: 3 }),
    object: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 3 }).map(sortedKeys),
  }),
);

const step = fc.oneof(
  fc.constantFrom(...KEYS).map((key) => `.${key}`),
  fc.nat({ max: 3 }).map((index) => `[${String(index)}]`),
  fc.constantFrom('[*]', '.*'),
);

const selectSource = fc
  .array(step, { minLength: 1, maxLength: 4 })
  .map((steps) => `$${steps.join('')}`);

function oracle(path: string, json: object): unknown[] {
  return JSONPath<unknown[]>({ path, json, wrap: true, eval: false });
}

describe('select language: plain JSONPath agrees with jsonpath-plus', () => {
  it('yields the values jsonpath-plus yields, in its order', () => {
    let hits = 0;
    fc.assert(
      fc.property(selectSource, jsonObject, (source, json) => {
        const ours = compileSelect(source)
          .items(json)
          .map((item) => item.value);
        expect(ours).toEqual(oracle(source, json));
        if (ours.length > 0) hits++;
      }),
      { numRuns: 2000 },
    );
    // Not vacuous: a good share of the random selects find something.
    expect(hits).toBeGreaterThan(200);
  });

  it('agrees on hand-picked documents where the paths hit', () => {
    const doc = {
      a: [{ b: 1, c: [true, null] }, { b: 'x' }, 7],
      b: { a: { c: 'deep' }, b: [[1, 2], [3]] },
    };
    for (const source of ['$.a[*].b', '$.a[0].c[*]', '$.b.*', '$.b.b[*][1]', '$.*.a.c', '$.a[2]']) {
      const ours = compileSelect(source)
        .items(doc)
        .map((item) => item.value);
      expect(ours, source).toEqual(oracle(source, doc));
      expect(ours.length, source).toBeGreaterThan(0);
    }
  });

  it('selects nothing in a string, where jsonpath-plus indexes it as JavaScript does', () => {
    const doc = { a: 'xy', b: ['xy'] };
    for (const source of ['$.a[0]', '$.b[0][1]', '$.a[*]']) {
      expect(compileSelect(source).items(doc), source).toEqual([]);
    }
    expect(oracle('$.a[0]', doc)).toEqual(['x']);
  });
});
