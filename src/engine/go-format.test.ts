import { describe, expect, it } from 'vitest';
import { goFormat } from './go-format.js';

// Expected strings were produced by Go's fmt.Printf("%v") on the json.Unmarshal-ed values.
describe("Go's %v printing", () => {
  it.each([
    [0, '0'],
    [1, '1'],
    [8080, '8080'],
    [100000, '100000'],
    [999999, '999999'],
    [-999999, '-999999'],
    [1000000, '1e+06'],
    [-1000000, '-1e+06'],
    [1234567, '1.234567e+06'],
    [1e20, '1e+20'],
    [1e21, '1e+21'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5, '1.5'],
    [-2.25, '-2.25'],
    [123456789, '1.23456789e+08'],
    [1e-7, '1e-07'],
    [12345678901234567000, '1.2345678901234567e+19'],
    ['text', 'text'],
    [true, 'true'],
    [null, '<nil>'],
    [['x', 2, null, true], '[x 2 <nil> true]'],
    [{ b: 1, a: ['x', 2, null, true] }, 'map[a:[x 2 <nil> true] b:1]'],
    [{}, 'map[]'],
    [{ b: 1, B: 2, a: 3 }, 'map[B:2 a:3 b:1]'],
    // Byte order, not UTF-16 order: U+FFFD (EF BF BD) sorts before U+1F600 (F0 9F 98 80).
    [{ '\u{1F600}': 1, '\uFFFD': 2 }, 'map[\uFFFD:2 \u{1F600}:1]'],
    [[], '[]'],
  ])('%j prints as %s', (value, expected) => {
    expect(goFormat(value)).toBe(expected);
  });
});
