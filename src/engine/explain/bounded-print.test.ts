import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { goFormat } from '../go-format.js';
import { BoundedPrinter, CUT_MARK, cutText } from './bounded-print.js';

const json = fc.jsonValue({ maxDepth: 4 });

describe('BoundedPrinter', () => {
  it('prints what goFormat prints when the text fits', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(new BoundedPrinter(1_000_000).go(value, 1_000_000)).toBe(goFormat(value));
      }),
    );
  });

  it('prints what JSON.stringify prints when the text fits', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(new BoundedPrinter(1_000_000).json(value, 1_000_000)).toBe(JSON.stringify(value));
      }),
    );
  });

  it('cuts at the length, keeping a prefix of the whole text and marking the cut', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 1, max: 60 }), (value, max) => {
        const printer = new BoundedPrinter(1_000_000);
        for (const [cut, whole] of [
          [printer.go(value, max), goFormat(value)],
          [printer.json(value, max), JSON.stringify(value)],
        ] as const) {
          if (whole.length <= max) {
            expect(cut).toBe(whole);
          } else {
            expect(cut).toHaveLength(max);
            expect(cut.endsWith(CUT_MARK)).toBe(true);
            expect(whole.startsWith(cut.slice(0, -1))).toBe(true);
          }
        }
      }),
    );
  });

  it('stops early on deep and long values (no stack, no whole-value walk)', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let reads = 0;
    const long = new Proxy(
      Array.from({ length: 1_000_000 }, () => ({ a: 'x' })),
      {
        get(target, key, receiver): unknown {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      },
    );
    const printer = new BoundedPrinter(1_000);
    expect(printer.go(deep, 20)).toBe(`${'['.repeat(19)}${CUT_MARK}`);
    expect(printer.json(long, 30)).toBe(`[{"a":"x"},{"a":"x"},{"a":"x"${CUT_MARK}`);
    expect(reads).toBeLessThanOrEqual(4);
  });

  it('lists map keys only within its key budget', () => {
    const map = { b: 1, a: 2, c: 3 };
    const printer = new BoundedPrinter(6);
    expect(printer.go(map, 100)).toBe('map[a:2 b:1 c:3]');
    expect(printer.go(map, 100)).toBe(`map[${CUT_MARK}`); // 3 keys left, 4 needed
    expect(printer.go({}, 100)).toBe(`map[${CUT_MARK}`); // spent
    expect(printer.json(map, 100)).toBe(`{${CUT_MARK}`);
    expect(printer.go('scalars need no keys', 100)).toBe('scalars need no keys');
  });

  it('prints the first keys of a big map in Go order without sorting them all', () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `key${String((i * 7919) % 50_000)}`);
    const map = Object.fromEntries(keys.map((k) => [k, 1]));
    const whole = goFormat(map);
    const cut = new BoundedPrinter(1_000_000).go(map, 100);
    expect(cut).toHaveLength(100);
    expect(whole.startsWith(cut.slice(0, -1))).toBe(true);
  });

  it('cutText keeps short texts and cuts long ones to the length', () => {
    expect(cutText('abc', 3)).toBe('abc');
    expect(cutText('abcd', 3)).toBe(`ab${CUT_MARK}`);
  });
});
