import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KubemodError } from '../../errors/catalog.js';
import type { JsonValue } from '../json.js';
import { applyOperation, type PatchOperationInput } from './apply-operation.js';

type Case = readonly [string, JsonValue, PatchOperationInput, JsonValue];

const arr = (): JsonValue => ({ a: [1, 2, 3] });

const cases: readonly Case[] = [
  // add
  ['add new member', { a: 1 }, { op: 'add', path: '/b', value: 2 }, { a: 1, b: 2 }],
  ['add existing member replaces', { a: 1 }, { op: 'add', path: '/a', value: 2 }, { a: 2 }],
  ['add missing value is null', { a: 1 }, { op: 'add', path: '/b' }, { a: 1, b: null }],
  ['add at index inserts', arr(), { op: 'add', path: '/a/1', value: 9 }, { a: [1, 9, 2, 3] }],
  ['add at length appends', arr(), { op: 'add', path: '/a/3', value: 9 }, { a: [1, 2, 3, 9] }],
  ['add - appends', arr(), { op: 'add', path: '/a/-', value: 9 }, { a: [1, 2, 3, 9] }],
  ['add -1 appends', arr(), { op: 'add', path: '/a/-1', value: 9 }, { a: [1, 2, 3, 9] }],
  ['add -2 before last', arr(), { op: 'add', path: '/a/-2', value: 9 }, { a: [1, 2, 9, 3] }],
  ['add -4 at front', arr(), { op: 'add', path: '/a/-4', value: 9 }, { a: [9, 1, 2, 3] }],
  ['add -1 on empty array', { a: [] }, { op: 'add', path: '/a/-1', value: 9 }, { a: [9] }],
  ['add creates parents', {}, { op: 'add', path: '/a/b/c', value: 1 }, { a: { b: { c: 1 } } }],
  [
    'add creates annotations with escaped key',
    { metadata: { name: 'x' } },
    { op: 'add', path: '/metadata/annotations/sidecar.istio.io~1inject', value: 'false' },
    { metadata: { name: 'x', annotations: { 'sidecar.istio.io/inject': 'false' } } },
  ],
  ['add ~0 key', {}, { op: 'add', path: '/a~0b', value: 1 }, { 'a~b': 1 }],
  ['add creates array for next 0', {}, { op: 'add', path: '/a/0', value: 1 }, { a: [1] }],
  ['add creates array for next -1', {}, { op: 'add', path: '/a/-1', value: 1 }, { a: [1] }],
  ['add creates array for next -', {}, { op: 'add', path: '/a/-', value: 1 }, { a: [1] }],
  [
    'add creates array then object',
    {},
    { op: 'add', path: '/a/0/name', value: 'n' },
    { a: [{ name: 'n' }] },
  ],
  [
    'add creates object for other numeric segment',
    {},
    { op: 'add', path: '/labels/123', value: 'x' },
    { labels: { '123': 'x' } },
  ],
  ['add through null parent', { a: null }, { op: 'add', path: '/a/b', value: 1 }, { a: { b: 1 } }],
  [
    'add through -1 intermediate (last element)',
    { c: [{ n: 1 }, { n: 2 }] },
    { op: 'add', path: '/c/-1/env', value: [] },
    { c: [{ n: 1 }, { n: 2, env: [] }] },
  ],
  [
    'add appends a created parent at index = length',
    { c: [{ n: 1 }] },
    { op: 'add', path: '/c/1/n', value: 2 },
    { c: [{ n: 1 }, { n: 2 }] },
  ],
  ['add object value', {}, { op: 'add', path: '/o', value: { x: [1] } }, { o: { x: [1] } }],
  [
    'add __proto__ is a member',
    {},
    { op: 'add', path: '/__proto__', value: 1 },
    JSON.parse('{"__proto__":1}') as JsonValue,
  ],
  ['add root replaces document', { a: 1 }, { op: 'add', path: '', value: [1] }, [1]],
  ['add empty key', {}, { op: 'add', path: '/', value: 1 }, { '': 1 }],
  // replace
  ['replace member', { a: 1 }, { op: 'replace', path: '/a', value: 'x' }, { a: 'x' }],
  ['replace with null', { a: 1 }, { op: 'replace', path: '/a' }, { a: null }],
  ['replace index', arr(), { op: 'replace', path: '/a/0', value: 9 }, { a: [9, 2, 3] }],
  ['replace -1 is last', arr(), { op: 'replace', path: '/a/-1', value: 9 }, { a: [1, 2, 9] }],
  ['replace -3 is first', arr(), { op: 'replace', path: '/a/-3', value: 9 }, { a: [9, 2, 3] }],
  [
    'replace nested -1',
    { c: [{ i: 'a' }, { i: 'b' }] },
    { op: 'replace', path: '/c/-1/i', value: 'z' },
    { c: [{ i: 'a' }, { i: 'z' }] },
  ],
  ['replace root', { a: 1 }, { op: 'replace', path: '', value: 'x' }, 'x'],
  // remove
  ['remove member', { a: 1, b: 2 }, { op: 'remove', path: '/a' }, { b: 2 }],
  ['remove index', arr(), { op: 'remove', path: '/a/1' }, { a: [1, 3] }],
  ['remove -1 is last', arr(), { op: 'remove', path: '/a/-1' }, { a: [1, 2] }],
  ['remove -2', arr(), { op: 'remove', path: '/a/-2' }, { a: [1, 3] }],
  ['remove -3 is first', arr(), { op: 'remove', path: '/a/-3' }, { a: [2, 3] }],
  ['remove missing member', { a: 1 }, { op: 'remove', path: '/b' }, { a: 1 }],
  ['remove missing parents', { a: 1 }, { op: 'remove', path: '/x/y/z' }, { a: 1 }],
  ['remove through scalar', { a: 1 }, { op: 'remove', path: '/a/b' }, { a: 1 }],
  ['remove through null', { a: null }, { op: 'remove', path: '/a/b' }, { a: null }],
  ['remove index = length', arr(), { op: 'remove', path: '/a/3' }, arr()],
  ['remove index out of range', arr(), { op: 'remove', path: '/a/10' }, arr()],
  ['remove negative out of range', arr(), { op: 'remove', path: '/a/-4' }, arr()],
  ['remove - on array', arr(), { op: 'remove', path: '/a/-' }, arr()],
  ['remove non-numeric on array', arr(), { op: 'remove', path: '/a/x' }, arr()],
  [
    'remove through out-of-range index',
    { c: [{ a: 1 }] },
    { op: 'remove', path: '/c/5/a' },
    { c: [{ a: 1 }] },
  ],
  [
    'remove escaped key',
    { m: { 'a/b': 1, c: 2 } },
    { op: 'remove', path: '/m/a~1b' },
    { m: { c: 2 } },
  ],
  ['remove __proto__ absent', {}, { op: 'remove', path: '/__proto__/x' }, {}],
  ['remove in scalar document', 5, { op: 'remove', path: '/a' }, 5],
];

describe('applyOperation', () => {
  it.each(cases)('%s', (_name, doc, op, expected) => {
    expect(applyOperation(doc, op)).toEqual(expected);
  });

  it('mutates the document in place and copies the value', () => {
    const doc: JsonValue = { a: {} };
    const value: JsonValue = { x: [1] };
    const result = applyOperation(doc, { op: 'add', path: '/a/b', value });
    expect(result).toBe(doc);
    expect(doc).toEqual({ a: { b: { x: [1] } } });
    applyOperation(doc, { op: 'add', path: '/a/b/x/-', value: 2 });
    expect(value).toEqual({ x: [1] });
  });

  it('does not touch Object.prototype', () => {
    applyOperation({}, { op: 'add', path: '/__proto__/polluted', value: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    [
      'replace missing parent',
      { a: 1 },
      { op: 'replace', path: '/spec/x', value: 1 },
      'replace /spec/x: path does not exist (/spec is missing)',
    ],
    [
      'replace missing leaf',
      { spec: {} },
      { op: 'replace', path: '/spec/x', value: 1 },
      'replace /spec/x: path does not exist',
    ],
    [
      'replace index out of range',
      { a: [1] },
      { op: 'replace', path: '/a/1', value: 1 },
      'replace /a/1: path does not exist',
    ],
    [
      'replace negative out of range',
      { a: [1] },
      { op: 'replace', path: '/a/-2', value: 1 },
      'replace /a/-2: path does not exist',
    ],
    [
      'replace - ',
      { a: [1] },
      { op: 'replace', path: '/a/-', value: 1 },
      'replace /a/-: path does not exist',
    ],
    [
      'replace through scalar',
      { a: 1 },
      { op: 'replace', path: '/a/b', value: 1 },
      'replace /a/b: path does not exist (/a is not an object or array)',
    ],
    [
      'add index beyond length',
      { a: [1] },
      { op: 'add', path: '/a/2', value: 1 },
      'add /a/2: index 2 is out of range (array length 1)',
    ],
    [
      'add negative beyond front',
      { a: [1] },
      { op: 'add', path: '/a/-3', value: 1 },
      'add /a/-3: index -3 is out of range (array length 1)',
    ],
    [
      'add non-index on array',
      { a: [1] },
      { op: 'add', path: '/a/x', value: 1 },
      'add /a/x: "x" is not an array index',
    ],
    [
      'add through scalar',
      { a: 'str' },
      { op: 'add', path: '/a/b', value: 1 },
      'add /a/b: /a is not an object or array',
    ],
    [
      'add through far index',
      { a: [] },
      { op: 'add', path: '/a/3/b', value: 1 },
      'add /a/3/b: index 3 is out of range at /a/3',
    ],
    [
      'add into scalar document',
      'x',
      { op: 'add', path: '/a', value: 1 },
      'add /a: the document is not an object or array',
    ],
    [
      'remove root',
      { a: 1 },
      { op: 'remove', path: '' },
      'remove : cannot remove the whole document',
    ],
  ] as const)('%s fails with PATCH_APPLY', (_name, doc, op, message) => {
    let caught: unknown;
    try {
      applyOperation(structuredClone(doc) as JsonValue, op);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KubemodError);
    expect((caught as KubemodError).kind).toBe('PATCH_APPLY');
    expect((caught as KubemodError).message).toBe(message);
  });

  it('rejects a path that is not a pointer with PATCH_PATH', () => {
    expect(() => applyOperation({}, { op: 'add', path: 'a', value: 1 })).toThrow(
      expect.objectContaining({ kind: 'PATCH_PATH' }) as Error,
    );
  });

  it('rejects an unknown op with PATCH_APPLY', () => {
    const op = { op: 'move', path: '/a' } as unknown as PatchOperationInput;
    expect(() => applyOperation({}, op)).toThrow(
      expect.objectContaining({ kind: 'PATCH_APPLY' }) as Error,
    );
  });

  it('never throws anything but KubemodError', () => {
    const segment = fc.oneof(
      fc.constantFrom('a', 'b', '0', '1', '2', '-1', '-2', '-3', '-', '', '__proto__', 'x~1y'),
      fc.string({ maxLength: 3 }),
      fc.integer({ min: -5, max: 5 }).map(String),
    );
    const path = fc.oneof(
      fc.array(segment, { maxLength: 5 }).map((segments) => segments.map((s) => '/' + s).join('')),
      fc.string({ maxLength: 6 }),
    );
    const op = fc.record({
      op: fc.constantFrom('add' as const, 'replace' as const, 'remove' as const),
      path,
      value: fc.option(fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>, {
        nil: undefined,
      }),
    });
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<JsonValue>,
        op,
        (doc, operation) => {
          try {
            applyOperation(doc, operation);
          } catch (err) {
            expect(err).toBeInstanceOf(KubemodError);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
