import { describe, expect, it } from 'vitest';
import { KubemodError } from '../../errors/catalog.js';
import {
  escapePointerSegment,
  formatJsonPointer,
  parseJsonPointer,
  unescapePointerSegment,
  validatePatchPath,
} from './json-pointer.js';

describe('escapePointerSegment / unescapePointerSegment', () => {
  it.each([
    ['plain', 'plain'],
    ['sidecar.istio.io/inject', 'sidecar.istio.io~1inject'],
    ['a~b', 'a~0b'],
    ['~/', '~0~1'],
    ['/~', '~1~0'],
    ['~1', '~01'],
    ['', ''],
  ])('%j ⇄ %j', (raw, escaped) => {
    expect(escapePointerSegment(raw)).toBe(escaped);
    expect(unescapePointerSegment(escaped)).toBe(raw);
  });

  it('escapes numbers as their decimal text', () => {
    expect(escapePointerSegment(3)).toBe('3');
  });

  it('keeps unknown ~ sequences literally (like evanphx/json-patch)', () => {
    expect(unescapePointerSegment('a~2b~')).toBe('a~2b~');
  });
});

describe('parseJsonPointer / formatJsonPointer', () => {
  it.each([
    ['', []],
    ['/', ['']],
    ['/a/b', ['a', 'b']],
    [
      '/metadata/annotations/sidecar.istio.io~1inject',
      ['metadata', 'annotations', 'sidecar.istio.io/inject'],
    ],
    ['/a~0b/0/-', ['a~b', '0', '-']],
    ['/a//b', ['a', '', 'b']],
  ])('%j ⇄ %j', (pointer, segments) => {
    expect(parseJsonPointer(pointer)).toEqual(segments);
    expect(formatJsonPointer(segments)).toBe(pointer);
  });

  it.each(['a/b', 'metadata', '#0/a', ' /a'])('rejects %j with PATCH_PATH', (pointer) => {
    expect(() => parseJsonPointer(pointer)).toThrow(KubemodError);
    try {
      parseJsonPointer(pointer);
    } catch (err) {
      expect((err as KubemodError).kind).toBe('PATCH_PATH');
      expect((err as KubemodError).message).toContain('must start with "/"');
    }
  });
});

describe('validatePatchPath', () => {
  it.each(['/a', '/', '/spec/containers/#0/image'])('accepts %j', (path) => {
    expect(() => {
      validatePatchPath(path);
    }).not.toThrow();
  });

  it.each(['', 'spec/x', '~1a'])('rejects %j', (path) => {
    expect(() => {
      validatePatchPath(path);
    }).toThrow(expect.objectContaining({ kind: 'PATCH_PATH' }) as Error);
  });
});
