import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KubemodError } from '../errors/catalog.js';
import type { JsonValue } from '../engine/json.js';
import { parseJsonBytes, parseJsonSliced } from './incremental-json.js';
import { createJsonSliceParser, type ParserTuning } from './json-slice-parser.js';

const DEPTH = 10_000;

/**
 * The first difference between two parsed values, or undefined: same types, numbers by Object.is
 * (so -0 counts), same own keys in the same order at every level, same prototypes, every property
 * an enumerable, writable own data property. Walked with an explicit stack.
 */
function difference(actual: unknown, expected: unknown): string | undefined {
  const stack: [unknown, unknown, string][] = [[actual, expected, '$']];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [a, e, path] = item;
    if (typeof a !== typeof e) return `${path}: ${typeof a} vs ${typeof e}`;
    if (typeof a !== 'object' || a === null || e === null || typeof e !== 'object') {
      if (!Object.is(a, e)) return `${path}: ${String(a)} vs ${String(e)}`;
      continue;
    }
    if (Array.isArray(a) !== Array.isArray(e)) return `${path}: array vs not`;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(e)) return `${path}: prototypes differ`;
    const aKeys = Reflect.ownKeys(a);
    const eKeys = Reflect.ownKeys(e);
    if (JSON.stringify(aKeys.map(String)) !== JSON.stringify(eKeys.map(String))) {
      return `${path}: keys ${JSON.stringify(aKeys.map(String))} vs ${JSON.stringify(eKeys.map(String))}`;
    }
    for (const key of aKeys) {
      const ad = Object.getOwnPropertyDescriptor(a, key);
      const ed = Object.getOwnPropertyDescriptor(e, key);
      if (ad?.enumerable !== ed?.enumerable || ad?.writable !== ed?.writable) {
        return `${path}.${String(key)}: descriptors differ`;
      }
      stack.push([ad?.value, ed?.value, `${path}.${String(key)}`]);
    }
  }
  return undefined;
}

/** Outcome of a parse: the value or the error. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

function outcome(parse: () => unknown): Outcome {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Expects the parser's outcome to be JSON.parse's: same value, or both throw (ours catalogued). */
function expectSameAsJsonParse(bytes: Uint8Array, ours: Outcome): void {
  const native = outcome(() => JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown);
  if (native.ok) {
    expect(ours.ok ? 'parsed' : String(ours.error)).toBe('parsed');
    if (ours.ok) expect(difference(ours.value, native.value)).toBeUndefined();
  } else {
    expect(ours.ok).toBe(false);
    if (!ours.ok) {
      expect(ours.error).toBeInstanceOf(KubemodError);
      expect((ours.error as KubemodError).kind).toBe('REQUEST_MALFORMED');
      expect((ours.error as KubemodError).message).toMatch(
        /^request body is not valid JSON: .+ at byte \d+$/,
      );
    }
  }
}

/** A fake clock that moves `advance` ms each time it is read, and counts yields. */
function fakeLoop(advance: number) {
  const loop = { now: 0, reads: 0, yields: 0 };
  return {
    loop,
    clock: () => {
      loop.reads++;
      loop.now += advance;
      return loop.now;
    },
    yieldToLoop: () => {
      loop.yields++;
      return Promise.resolve();
    },
  };
}

/** Parses with a clock that passes the slice at every reading, reading it after every byte. */
async function parseYieldingAlways(bytes: Uint8Array) {
  const { loop, clock, yieldToLoop } = fakeLoop(1000);
  const value = await parseJsonSliced(bytes, {
    maxDepth: DEPTH,
    sliceMs: 1,
    clock,
    yieldToLoop,
    checkIntervalBytes: 1,
  });
  return { value, yields: loop.yields };
}

/** Runs the parser to the end with small tuning values, so strings are decoded in many pieces. */
function parseTuned(bytes: Uint8Array, tuning: ParserTuning): JsonValue {
  const parser = createJsonSliceParser(bytes, DEPTH, tuning);
  let time = 0;
  while (!parser.step(time + 1, () => time++));
  return parser.result();
}

const tuningArb = fc.record({
  checkIntervalBytes: fc.integer({ min: 1, max: 9 }),
  stringChunkBytes: fc.integer({ min: 4, max: 12 }),
});

/** JSON text of objects with keys from a small set, so keys repeat and `__proto__` appears. */
const objectTextArb = fc.letrec<{ text: string }>((tie) => ({
  text: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }).map((v) => JSON.stringify(v)),
    fc
      .array(
        fc.tuple(
          fc.constantFrom('__proto__', 'a', 'b', '1', '0', 'constructor', 'toString', '\u00e9'),
          tie('text'),
        ),
        { maxLength: 6 },
      )
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
    fc.array(tie('text'), { maxLength: 4 }).map((items) => `[${items.join(' , ')}]`),
  ),
})).text;

/** Valid JSON text, sometimes pretty-printed. */
const jsonTextArb = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.jsonValue({ stringUnit: 'binary' }).map((v) => JSON.stringify(v, null, 2)),
  objectTextArb,
);

/** A byte likely to matter to a JSON parser, or any byte. */
const byteArb = fc.oneof(
  fc.constantFrom(...Buffer.from('{}[],:"\\ \t\n\r0123456789.eE+-tfnul/bu')),
  fc.integer({ min: 0, max: 255 }),
);

/** Valid JSON bytes broken in one of several ways. */
const mutatedArb = fc
  .tuple(
    jsonTextArb.map((text) => Buffer.from(text)),
    fc.nat(),
    byteArb,
    fc.constantFrom('truncate', 'insert', 'delete', 'replace'),
  )
  .map(([bytes, at, byte, how]) => {
    const i = bytes.length === 0 ? 0 : at % bytes.length;
    const before = bytes.subarray(0, i);
    if (how === 'truncate') return Buffer.from(before);
    if (how === 'insert') return Buffer.concat([before, Buffer.of(byte), bytes.subarray(i)]);
    if (how === 'delete') return Buffer.concat([before, bytes.subarray(i + 1)]);
    return Buffer.concat([before, Buffer.of(byte), bytes.subarray(i + 1)]);
  });

describe('parseJsonBytes', () => {
  it('gives what JSON.parse gives on random JSON', () => {
    fc.assert(
      fc.property(jsonTextArb, (text) => {
        const bytes = Buffer.from(text);
        expectSameAsJsonParse(
          bytes,
          outcome(() => parseJsonBytes(bytes, DEPTH)),
        );
      }),
      { numRuns: 1500 },
    );
  });

  it('keeps __proto__ as an own property and the first position of a duplicate key', () => {
    const text = '{"b":1,"__proto__":{"polluted":true},"a":2,"b":3,"__proto__":[4],"1":5}';
    const value = parseJsonBytes(Buffer.from(text), DEPTH) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['1', 'b', '__proto__', 'a']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual([4]);
    expect(value.b).toBe(3);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(difference(value, JSON.parse(text))).toBeUndefined();
  });

  it('decodes escapes, surrogate pairs and lone surrogates', () => {
    const text = String.raw`["\ud83d\ude00","\ud800","\udc00\ud800x","\/\b\f\n\r\t\"\\","\u00E9\u0000"]`;
    const value = parseJsonBytes(Buffer.from(text), DEPTH);
    expect(value).toEqual(['😀', '\ud800', '\udc00\ud800x', '/\b\f\n\r\t"\\', 'é\u0000']);
    expect(difference(value, JSON.parse(text))).toBeUndefined();
  });

  it('reads numbers as JSON.parse does, -0 included', () => {
    const text =
      '[-0,0,-0.0,1e400,-1e-400,123456789012345678901234567890,0.1,1E+2,9007199254740993]';
    expect(difference(parseJsonBytes(Buffer.from(text), DEPTH), JSON.parse(text))).toBeUndefined();
    expect(Object.is(parseJsonBytes(Buffer.from('-0'), DEPTH), -0)).toBe(true);
  });

  it('reads numbers of thousands of digits as JSON.parse does', () => {
    const digits = (max: number) =>
      fc
        .array(fc.constantFrom('0', '0', '0', '1', '5', '9'), { maxLength: max })
        .map((d) => d.join(''));
    const numberArb = fc
      .record({
        minus: fc.boolean(),
        int: fc.oneof(
          fc.constant('0'),
          fc.tuple(fc.constantFrom('1', '4', '9'), digits(1500)).map(([a, b]) => a + b),
        ),
        frac: fc.option(
          fc.tuple(digits(1200), fc.constantFrom('0', '1', '5', '9')).map(([a, b]) => a + b),
        ),
        exp: fc.option(
          fc.tuple(
            fc.constantFrom('e', 'E', 'e+', 'e-', 'E-'),
            digits(5),
            fc.integer({ min: 0, max: 2000 }),
          ),
        ),
      })
      .map(
        ({ minus, int, frac, exp }) =>
          `${minus ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : `${exp[0]}${exp[1]}${String(exp[2])}`}`,
      );
    fc.assert(
      fc.property(numberArb, (text) => {
        expect(Object.is(parseJsonBytes(Buffer.from(text), DEPTH), JSON.parse(text))).toBe(true);
      }),
      { numRuns: 1000 },
    );
    // Exact midpoints between two doubles round to even; a non-zero digit a thousand places later
    // rounds up. The midpoint above 1 has 54 significant digits, the one below the smallest
    // subnormal double 752.
    const midpoints = [
      `${((2n ** 53n + 1n) * 5n ** 53n).toString()}${'0'.repeat(1000)}`,
      `${(5n ** 1075n).toString()}${'0'.repeat(300)}`,
    ];
    const scales = [53 + 1000, 1075 + 300];
    const below = [1, 0];
    const above = [1 + 2 ** -52, 5e-324];
    midpoints.forEach((digits, k) => {
      const exact = `${digits}e-${String(scales[k])}`;
      const more = `${digits}1e-${String((scales[k] ?? 0) + 1)}`;
      expect(parseJsonBytes(Buffer.from(exact), DEPTH)).toBe(JSON.parse(exact));
      expect(parseJsonBytes(Buffer.from(exact), DEPTH)).toBe(below[k]);
      expect(parseJsonBytes(Buffer.from(more), DEPTH)).toBe(JSON.parse(more));
      expect(parseJsonBytes(Buffer.from(more), DEPTH)).toBe(above[k]);
    });
  });

  it('allows only space, tab, LF and CR around the value, and refuses a BOM', () => {
    expect(parseJsonBytes(Buffer.from(' \t\r\n{ "a" : [ 1 , 2 ] }\n '), DEPTH)).toEqual({
      a: [1, 2],
    });
    for (const text of ['\uFEFF{}', '\u00a0{}', '{}\u2028', '\v1', '1\f']) {
      expect(() => JSON.parse(text) as unknown).toThrow();
      expect(() => parseJsonBytes(Buffer.from(text), DEPTH)).toThrow(KubemodError);
    }
  });

  it('names the reason and the byte offset of a syntax error', () => {
    const cases: [string, string][] = [
      ['', 'unexpected end of input, expected a value at byte 0'],
      ['[1,]', "unexpected ']', expected a value at byte 3"],
      ['{"a" 1}', "unexpected '1', expected ':' after a property name at byte 5"],
      ['{"a":1}x', "unexpected 'x' after the JSON value at byte 7"],
      ['["abc', 'unterminated string at byte 1'],
      ['"a\tb"', 'control character byte 0x09 in a string at byte 2'],
      ['"\\x"', "bad escape 'x' in a string at byte 1"],
      ['01', "unexpected '1' after the JSON value at byte 1"],
      ['-.5', "unexpected '.', expected a digit in a number at byte 1"],
      ['nul', 'invalid literal (expected true, false or null) at byte 0'],
    ];
    for (const [text, reason] of cases) {
      expect(() => parseJsonBytes(Buffer.from(text), DEPTH)).toThrow(
        `request body is not valid JSON: ${reason}`,
      );
    }
  });

  it('throws exactly when JSON.parse of the decoded body throws, on broken JSON', () => {
    fc.assert(
      fc.property(mutatedArb, (bytes) => {
        expectSameAsJsonParse(
          bytes,
          outcome(() => parseJsonBytes(bytes, DEPTH)),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('throws exactly when JSON.parse throws, on arbitrary strings and bytes', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }).map((s) => Buffer.from(s)),
          fc.uint8Array({ maxLength: 40 }),
          fc.array(byteArb, { maxLength: 30 }).map((b) => Uint8Array.from(b)),
        ),
        (bytes) => {
          expectSameAsJsonParse(
            bytes,
            outcome(() => parseJsonBytes(bytes, DEPTH)),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('decodes any bytes inside quotes as Buffer.toString does on the whole body', () => {
    const inside = fc
      .uint8Array({ maxLength: 64 })
      .map((b) => b.map((x) => (x === 0x22 || x === 0x5c || x < 0x20 ? x | 0x80 : x)));
    fc.assert(
      fc.property(inside, tuningArb, (raw, tuning) => {
        const bytes = Buffer.concat([
          Buffer.from('["'),
          raw,
          Buffer.from('", "\\n', 'latin1'),
          raw,
          Buffer.from('"]'),
        ]);
        const expected = JSON.parse(bytes.toString('utf8')) as unknown;
        expect(difference(parseJsonBytes(bytes, DEPTH), expected)).toBeUndefined();
        expect(difference(parseTuned(bytes, tuning), expected)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('decodes a long string in pieces exactly, whatever the piece size', () => {
    fc.assert(
      fc.property(jsonTextArb, tuningArb, (text, tuning) => {
        const bytes = Buffer.from(text);
        expect(difference(parseTuned(bytes, tuning), JSON.parse(text))).toBeUndefined();
      }),
      { numRuns: 500 },
    );
    const long = JSON.stringify(['x€😀\u0001"\\'.repeat(30_000), 'é'.repeat(100_000)]);
    expect(parseJsonBytes(Buffer.from(long), DEPTH)).toEqual(JSON.parse(long));
  });
});

describe('depth', () => {
  const nested = (times: number, open: string, inner: string, close: string) =>
    Buffer.from(`${open.repeat(times)}${inner}${close.repeat(times)}`);

  it('accepts exactly maxDepth levels and refuses one more', () => {
    // [exactly 10 levels, 11 levels] of arrays, of objects, of both.
    const cases: [Buffer, Buffer][] = [
      [nested(10, '[', '', ']'), nested(11, '[', '', ']')],
      [nested(9, '{"a":', '{}', '}'), nested(10, '{"a":', '{}', '}')],
      [nested(5, '[{"":', '0', '}]'), nested(5, '[{"":', '[]', '}]')],
    ];
    for (const [deepest, tooDeep] of cases) {
      expect(
        difference(parseJsonBytes(deepest, 10), JSON.parse(deepest.toString())),
      ).toBeUndefined();
      expect(() => JSON.parse(tooDeep.toString()) as unknown).not.toThrow();
      expect(() => parseJsonBytes(tooDeep, 10)).toThrow(
        new KubemodError('REQUEST_MALFORMED', 'request body nests deeper than 10 levels'),
      );
    }
    expect(() => parseJsonBytes(nested(DEPTH, '[', '', ']'), DEPTH)).not.toThrow();
    expect(() => parseJsonBytes(nested(DEPTH + 1, '[', '', ']'), DEPTH)).toThrow(
      `request body nests deeper than ${String(DEPTH)} levels`,
    );
  });

  it('refuses a million-deep body as soon as the limit is passed, without overflowing', async () => {
    const deep = Buffer.from('['.repeat(1_000_000));
    expect(() => parseJsonBytes(deep, DEPTH)).toThrow(
      new KubemodError(
        'REQUEST_MALFORMED',
        `request body nests deeper than ${String(DEPTH)} levels`,
      ),
    );
    // Reading the clock after every byte counts the bytes read: the limit, not the body.
    const { loop, clock, yieldToLoop } = fakeLoop(0);
    await expect(
      parseJsonSliced(deep, {
        maxDepth: DEPTH,
        sliceMs: 1,
        clock,
        yieldToLoop,
        checkIntervalBytes: 1,
      }),
    ).rejects.toThrow('nests deeper than');
    expect(loop.reads).toBeLessThanOrEqual(DEPTH + 2);
    expect(loop.yields).toBe(0);
  });
});

describe('parseJsonSliced', () => {
  it('gives what JSON.parse gives while yielding at every clock reading', async () => {
    await fc.assert(
      fc.asyncProperty(jsonTextArb, async (text) => {
        const bytes = Buffer.from(text);
        const { value, yields } = await parseYieldingAlways(bytes);
        expect(difference(value, JSON.parse(text))).toBeUndefined();
        if (bytes.length >= 2) expect(yields).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });

  it('throws as the synchronous parser does on broken JSON', async () => {
    await fc.assert(
      fc.asyncProperty(mutatedArb, async (bytes) => {
        const sliced = await parseYieldingAlways(bytes).then(
          (r): Outcome => ({ ok: true, value: r.value }),
          (error: unknown): Outcome => ({ ok: false, error }),
        );
        expectSameAsJsonParse(bytes, sliced);
      }),
      { numRuns: 500 },
    );
  });

  it('yields only after the clock passed the slice, and reads the clock every few KB', async () => {
    const body = Buffer.from(
      JSON.stringify({
        items: Array.from({ length: 3000 }, (_, i) => ({
          name: `item-${String(i)}`,
          n: i,
          on: true,
        })),
        long: 'y'.repeat(200_000),
      }),
    );
    const readings: number[] = [];
    const sliceStarts: number[] = [];
    let now = 0;
    let yields = 0;
    const clock = () => {
      now += 0.25;
      readings.push(now);
      return now;
    };
    const value = await parseJsonSliced(body, {
      maxDepth: DEPTH,
      sliceMs: 1,
      clock: () => {
        const t = clock();
        if (sliceStarts.length === yields) sliceStarts.push(t);
        return t;
      },
      yieldToLoop: () => {
        const start = sliceStarts[yields] ?? Number.NaN;
        // The last reading, which made the parser stop, is a full slice after the slice began.
        expect(now - start).toBeGreaterThanOrEqual(1);
        yields++;
        return Promise.resolve();
      },
    });
    expect(value).toEqual(JSON.parse(body.toString()));
    expect(yields).toBeGreaterThan(10);
    // One reading starts each slice; the others come every 2,048 bytes at most.
    expect(readings.length).toBeLessThanOrEqual(yields + 1 + Math.ceil(body.length / 2048) + 1);
  });
});
