import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, jsonDepthAtMost, jsonNestingDepth } from './json-depth.js';

/** Depth of a parsed value, walked iteratively. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The scan as it was before strings were skipped with indexOf: one character at a time. */
function charByCharDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (c === '}' || c === ']') depth--;
  }
  return deepest;
}

describe('jsonNestingDepth', () => {
  it('agrees with the character-at-a-time scan on any text (escapes, unterminated strings)', () => {
    const text = fc
      .array(fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ',', '\\"', '\\\\'), {
        maxLength: 200,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 8 }), (t, stop) => {
        expect(jsonNestingDepth(t)).toBe(charByCharDepth(t));
        expect(jsonNestingDepth(t, stop)).toBe(charByCharDepth(t, stop));
      }),
      { numRuns: 2000 },
    );
  });

  it('skips escaped quotes and runs of backslashes inside strings', () => {
    expect(jsonNestingDepth('["a\\"[[", "b\\\\", [1]]')).toBe(2);
    expect(jsonNestingDepth('["\\\\\\"[[[["]')).toBe(1);
    expect(jsonNestingDepth('["never ends [[[')).toBe(1);
  });

  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonNestingDepth('{"a":[1,{"b":"[[[{{{"}]}')).toBe(3);
    expect(jsonNestingDepth('"\\"[[["')).toBe(0);
    expect(jsonNestingDepth('[]')).toBe(1);
  });

  it('stops as soon as the limit is passed', () => {
    const deep = '['.repeat(1_000_000);
    expect(jsonNestingDepth(deep, 10_000)).toBe(10_001);
    expect(exceedsJsonDepth(deep)).toBe(true);
    expect(exceedsJsonDepth(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)).toBe(false);
  });

  it('does not scan texts too short to pass the limit', () => {
    expect(exceedsJsonDepth('[[[[[[', 10)).toBe(false);
    expect(exceedsJsonDepth('[[[[[[[[[[[[', 10)).toBe(true);
  });

  it('agrees with the parsed value on random JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), (value) => {
        expect(jsonNestingDepth(JSON.stringify(value))).toBe(depthOf(value));
      }),
      { numRuns: 300 },
    );
  });
});

describe('jsonDepthAtMost', () => {
  it('answers as the full scan does on any text, with few or many brackets', () => {
    const text = fc
      .array(fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ',', '\\"', '"[{"'), {
        maxLength: 60,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 12 }), (t, limit) => {
        expect(jsonDepthAtMost(t, limit)).toBe(jsonNestingDepth(t, limit) <= limit);
      }),
      { numRuns: 3000 },
    );
  });

  it('counts brackets inside strings towards the shortcut but not towards the depth', () => {
    // Three opening brackets in all, one of them real: the shortcut alone settles limit 3.
    expect(jsonDepthAtMost('["[{"]', 3)).toBe(true);
    // Over the limit in brackets, not in depth: the full scan decides.
    expect(jsonDepthAtMost('["[[[[[[[["]', 2)).toBe(true);
    expect(jsonDepthAtMost('[[[1]]]', 2)).toBe(false);
  });

  it('refuses a text nested one level over the limit, whatever its size', () => {
    const limit = 100;
    const deep = `${'['.repeat(limit + 1)}${']'.repeat(limit + 1)}`;
    expect(jsonDepthAtMost(deep, limit)).toBe(false);
    expect(jsonDepthAtMost(`${'['.repeat(limit)}${']'.repeat(limit)}`, limit)).toBe(true);
    const padded = `{"pad":"${'x'.repeat(200_000)}","v":${deep}}`;
    expect(jsonDepthAtMost(padded, limit)).toBe(false);
  });
});
