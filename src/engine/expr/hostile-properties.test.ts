import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileSelect } from './select.js';
import { KubemodError } from '../../errors/catalog.js';
import { withMeter } from '../active-meter.js';
import { WorkMeter } from '../work-meter.js';

const FAST_MS = 500;

/** Runs `work` as one metered rule; only catalogued errors may escape, and quickly. */
function boundedRun(work: () => unknown): void {
  const meter = new WorkMeter();
  const start = performance.now();
  try {
    withMeter(meter, () => meter.runRule('team', 'team/fuzz', work));
  } catch (err) {
    expect(err).toBeInstanceOf(KubemodError);
  }
  expect(performance.now() - start).toBeLessThan(FAST_MS);
}

/** A JSON value `depth` levels deep and `width` wide at every level, built without recursion. */
function shaped(depth: number, width: number, key: string, asArray: boolean): unknown {
  let value: unknown = { image: 'nginx', [key]: 'x' };
  for (let level = 0; level < depth; level++) {
    if (asArray) {
      const items: unknown[] = [value];
      for (let i = 1; i < width; i++) items.push(i % 2 === 0 ? { image: String(i) } : i);
      value = items;
    } else {
      const object: Record<string, unknown> = { [key]: value };
      for (let i = 1; i < width; i++) object[`k${String(i)}`] = { image: String(i) };
      value = object;
    }
  }
  return value;
}

const deepOrWide = fc
  .record({
    depth: fc.integer({ min: 0, max: 20_000 }),
    width: fc.integer({ min: 1, max: 4 }),
    key: fc.constantFrom('a', 'image', '__proto__', 'x/y~z', ''),
    asArray: fc.boolean(),
  })
  .chain((shape) =>
    fc.constant(shape).map(() => shaped(shape.depth, shape.width, shape.key, shape.asArray)),
  );

const wideFlat = fc
  .integer({ min: 0, max: 150_000 })
  .map((n) => Array.from({ length: n }, (_, i) => ({ image: `i${String(i)}`, n: i })));

const selects = [
  '$..image',
  '$..*',
  '$..[?(@.image == "nginx")]',
  '$..a..image',
  '$.*.*.*',
  '$..image =~ "ng"',
  '$ =~ "zzz"',
  '$ == $',
  '[$, $, $] =~ "q"',
  'length($..*) > 0',
  '$[*][? @.n > 3].image',
  '$[::-1][0,1,2,0,1,2]',
  '$..image + "x"',
].map((source) => compileSelect(source));

describe('hostile select properties', () => {
  it('deep or wide documents never escape with anything but a catalogued error, quickly', () => {
    fc.assert(
      fc.property(fc.oneof(deepOrWide, wideFlat), (doc) => {
        for (const select of selects) {
          boundedRun(() => select.outcome(doc));
          boundedRun(() => select.items(doc));
        }
      }),
      { numRuns: 5, endOnFailure: true },
    );
  }, 60_000);

  const operand = fc.constantFrom('1', '$.a', '"s"', 'true', '@.b', '[1]', 'length($.a)', '$..a');
  const operator = fc.constantFrom('+', '-', '*', '&&', '||', '==', '<', '??', 'in', '=~', '%');
  const flatChain = fc
    .tuple(operand, fc.array(fc.tuple(operator, operand), { minLength: 1, maxLength: 3000 }))
    .map(([first, rest]) => first + rest.map(([op, term]) => ` ${op} ${term}`).join(''));
  const wrapper = fc.constantFrom<[string, string]>(
    ['(', ')'],
    ['[', ']'],
    ['!', ''],
    ['- ', ''],
    ['length(', ')'],
    ['{k:', '}'],
    ['$.a[?(', ')]'],
    ['true ? ', ' : 1'],
  );
  const deepNesting = fc
    .tuple(fc.array(wrapper, { minLength: 1, maxLength: 2000 }), operand)
    .map(([wrappers, core]) => {
      let open = '';
      let close = '';
      for (const [before, after] of wrappers) {
        open += before;
        close = after + close;
      }
      return open + core + close;
    });

  it('long chains and deep nesting compile or fail with a catalogued error, quickly', () => {
    const doc = { a: [1, 2, { a: 'x' }], b: 'y' };
    fc.assert(
      fc.property(fc.oneof(flatChain, deepNesting), (source) => {
        const start = performance.now();
        let select: ReturnType<typeof compileSelect> | undefined;
        try {
          select = compileSelect(source);
        } catch (err) {
          expect(err).toBeInstanceOf(KubemodError);
        }
        expect(performance.now() - start).toBeLessThan(FAST_MS);
        if (select !== undefined) {
          const compiled = select;
          boundedRun(() => compiled.evaluate(doc));
          boundedRun(() => compiled.items(doc));
        }
      }),
      { numRuns: 300, endOnFailure: true },
    );
  }, 60_000);
});
