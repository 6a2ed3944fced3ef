import { describe, expect, it } from 'vitest';
import { formatGoFloat32, goMapKey } from './yaml-map-key.js';

describe('formatGoFloat32 (Go strconv.FormatFloat(f, "g", -1, 32))', () => {
  it.each([
    [1.5, '1.5'],
    [0.1, '0.1'],
    [-2.5, '-2.5'],
    [100, '100'],
    [123456, '123456'],
    [1e6, '1e+06'],
    [1234567, '1.234567e+06'],
    [16777217, '1.6777216e+07'],
    [3.14159265358979, '3.1415927'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [1e100, '.inf'],
    [0, '0'],
    [Number.NaN, '.nan'],
    [Number.NEGATIVE_INFINITY, '-.inf'],
  ])('%d → %s', (value, expected) => {
    expect(formatGoFloat32(value)).toBe(expected);
  });
});

describe('goMapKey', () => {
  it.each([
    ['name', 'name'],
    [true, 'true'],
    [false, 'false'],
    [12n, '12'],
    [-(2n ** 63n), '-9223372036854775808'],
    [2n ** 63n, undefined],
    [2.5, '2.5'],
    [null, undefined],
    [[1], undefined],
    [new Map(), undefined],
  ] as [unknown, string | undefined][])('key #%# → %s', (key, expected) => {
    expect(goMapKey(key)).toBe(expected);
  });
});
