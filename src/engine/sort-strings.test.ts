import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sortedKeys, sortStrings } from './sort-strings.js';

describe('sortStrings', () => {
  it('orders like Array.prototype.sort, short and long arrays alike', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 60 }), (keys) => {
        const expected = [...keys].sort();
        const actual = [...keys];
        expect(sortStrings(actual)).toBe(actual);
        expect(actual).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('sorts member names in UTF-16 code unit order', () => {
    expect(sortedKeys({ b: 1, a: 2, B: 3, 'a/b': 4, é: 5, '': 6 })).toEqual([
      '',
      'B',
      'a',
      'a/b',
      'b',
      'é',
    ]);
  });
});
