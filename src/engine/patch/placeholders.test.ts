import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KubemodError } from '../../errors/catalog.js';
import { parseJsonPointer } from './json-pointer.js';
import { compilePath } from './placeholders.js';

describe('compilePath', () => {
  it('renders the README example once per select result', () => {
    const path = compilePath('/spec/template/spec/containers/#0/ports/#1/containerPort');
    expect(path.maxPlaceholder).toBe(1);
    expect(path.render([1, 1])).toBe('/spec/template/spec/containers/1/ports/1/containerPort');
    expect(path.render([3, 0])).toBe('/spec/template/spec/containers/3/ports/0/containerPort');
  });

  it.each([
    ['/metadata/labels/app', [], '/metadata/labels/app', -1],
    ['/metadata/labels/app', [5], '/metadata/labels/app', -1],
    ['/spec/containers/#0', [2], '/spec/containers/2', 0],
    ['/a/#1/b/#0', [7, 8], '/a/8/b/7', 1],
    ['/a/#0/#0', [4], '/a/4/4', 0],
    [
      '/metadata/labels/#0',
      ['app.kubernetes.io/name'],
      '/metadata/labels/app.kubernetes.io~1name',
      0,
    ],
    ['/metadata/labels/#0', ['a~b'], '/metadata/labels/a~0b', 0],
    ['/a/x#0y', [3], '/a/x3y', 0],
    ['/a/#x/#', [], '/a/#x/#', -1],
    ['/a/#10', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], '/a/10', 10],
    ['/a/#01', [0, 9], '/a/9', 1],
  ] as const)('%s with %j → %s', (source, keyParts, expected, max) => {
    const path = compilePath(source);
    expect(path.source).toBe(source);
    expect(path.maxPlaceholder).toBe(max);
    expect(path.render(keyParts)).toBe(expected);
  });

  it('pre-splits literal and placeholder parts', () => {
    expect(compilePath('/c/#0/p/#1').parts).toEqual([
      { literal: '/c/' },
      { placeholder: 0 },
      { literal: '/p/' },
      { placeholder: 1 },
    ]);
  });

  it.each([
    ['/a/#1', [0], '#1', 'captured only 1 index (#0…#0)'],
    ['/a/#2/#0', [0, 1], '#2', 'captured only 2 indexes (#0…#1)'],
    ['/a/#0', [], '#0', 'captured no indexes'],
  ] as const)('%s with %j fails naming %s', (source, keyParts, placeholder, captured) => {
    const path = compilePath(source);
    let caught: unknown;
    try {
      path.render(keyParts);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KubemodError);
    const error = caught as KubemodError;
    expect(error.kind).toBe('PATCH_PLACEHOLDER');
    expect(error.message).toContain(`placeholder ${placeholder}`);
    expect(error.message).toContain(captured);
  });

  it.each(['', 'spec/#0', '#0'])('rejects %j at compile time with PATCH_PATH', (source) => {
    expect(() => compilePath(source)).toThrow(
      expect.objectContaining({ kind: 'PATCH_PATH' }) as Error,
    );
  });
});

describe('CompiledPath.segments', () => {
  it.each([
    ['/metadata/labels/app', [], ['metadata', 'labels', 'app']],
    ['/spec/containers/#0/env/-1', [2], ['spec', 'containers', '2', 'env', '-1']],
    [
      '/metadata/labels/#0',
      ['app.kubernetes.io/name'],
      ['metadata', 'labels', 'app.kubernetes.io/name'],
    ],
    ['/metadata/labels/#0', ['a~1b'], ['metadata', 'labels', 'a~1b']],
    ['/a/x#0y/#1', [3, 'k'], ['a', 'x3y', 'k']],
    ['/#0', [''], ['']],
    ['/a//b/', [], ['a', '', 'b', '']],
  ] as const)('%s with %j → %j', (source, keyParts, expected) => {
    const path = compilePath(source);
    expect(path.segments?.(keyParts)).toEqual(expected);
  });

  it.each([
    ['/metadata/labels/example.com~1team', [], ['metadata', 'labels', 'example.com/team']],
    ['/a~0b/#0~1x', ['k/'], ['a~b', 'k//x']],
    ['/a~01/#0', ['~'], ['a~1', '~']],
  ] as const)('unescapes the literal text of %s with %j', (source, keyParts, expected) => {
    expect(compilePath(source).segments?.(keyParts)).toEqual(expected);
  });

  it('leaves a ~ just before a placeholder to parseJsonPointer', () => {
    expect(compilePath('/a~#0').segments).toBeUndefined();
    expect(compilePath('/a~/#0').segments?.([1])).toEqual(['a~', '1']);
  });

  it('gives a path without placeholders one frozen array', () => {
    const path = compilePath('/metadata/labels/app');
    const first = path.segments?.([]);
    expect(Object.isFrozen(first)).toBe(true);
    expect(path.segments?.([1])).toBe(first);
  });

  it('is what parseJsonPointer makes of the rendered path', () => {
    const literal = fc
      .stringMatching(/^[a-z0-9./#~-]{0,6}$/)
      .map((s) => s.replace(/#+(?=\d)/g, ''));
    const key = fc.oneof(
      fc.nat(30),
      fc.string({ maxLength: 6, unit: fc.constantFrom('a', '/', '~', '0', '1', '#', '') }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(literal, fc.nat(2)), { minLength: 1, maxLength: 6 }),
        fc.array(key, { minLength: 3, maxLength: 3 }),
        (pieces, keyParts) => {
          const source =
            '/' + pieces.map((p) => (typeof p === 'number' ? `#${String(p)}` : p)).join('/');
          const path = compilePath(source);
          const segments = path.segments?.(keyParts);
          if (segments === undefined) return;
          expect(segments).toEqual(parseJsonPointer(path.render(keyParts)));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
