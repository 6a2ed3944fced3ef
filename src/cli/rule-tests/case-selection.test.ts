import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseSelector, wildcardMatch } from './case-selection.js';

describe('wildcardMatch: a whole case name against a -t/--case pattern', () => {
  it.each([
    ['adds the owner label', 'adds the owner label', true],
    ['adds the owner label', 'adds the owner', false],
    ['adds*', 'adds the owner label', true],
    ['*owner*', 'adds the owner label', true],
    ['*owner', 'adds the owner label', false],
    ['a?d', 'add', true],
    ['a?d', 'ad', false],
    ['*', '', true],
    ['', '', true],
    ['', 'x', false],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'aXbY', false],
    ['[x]', '[x]', true],
    ['.+', 'ab', false],
    ['*é?', 'café!', true],
  ])('%j against %j is %s', (pattern, name, expected) => {
    expect(wildcardMatch(pattern, name)).toBe(expected);
  });

  it('agrees with an equivalent regular expression (fast-check)', () => {
    const chars = fc.constantFrom('a', 'b', '*', '?');
    fc.assert(
      fc.property(
        fc.string({ unit: chars, maxLength: 8 }),
        fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 10 }),
        (pattern, name) => {
          const regex = new RegExp(`^${pattern.replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'su');
          expect(wildcardMatch(pattern, name)).toBe(regex.test(name));
        },
      ),
    );
  });

  it('stays fast on a pattern of many stars against a long name', () => {
    const name = 'a'.repeat(5_000);
    const start = performance.now();
    expect(wildcardMatch(`${'*a'.repeat(50)}b`, name)).toBe(false);
    expect(performance.now() - start).toBeLessThan(5_000);
  });
});

describe('caseSelector', () => {
  it('selects every case without patterns, any matching one with several', () => {
    expect(caseSelector([])).toBeUndefined();
    const select = caseSelector(['adds*', 'exact name']);
    expect(['adds x', 'exact name', 'exact name 2', 'other'].filter((n) => select?.(n))).toEqual([
      'adds x',
      'exact name',
    ]);
  });
});
