import fc from 'fast-check';
import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../json.js';
import { renderYaml } from './yaml-render.js';

/** The value with its keys inserted in sorted order, as the js-yaml rendering it replaces. */
function sortKeys(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sortKeys);
  const sorted: JsonObject = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(sorted, key, {
      value: sortKeys(value[key] as JsonValue),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return sorted;
}

const tricky = fc.constantFrom(
  ...['yes', 'no', 'on', 'Off', 'y', 'null', '~', '8080', '1e3', '0x1f', '.inf', '-.5', '--- a'],
  ...['... b', 'a\nb', 'a\n\n', '\n', ' a\nb', 'a\n', '- x', 'a: b', '#c', '\t', 'é\u2028'],
  ...['', ' ', 'a'.repeat(1030), 'x\nx\nx\n\n\n', '=', '2001-12-14', '__proto__', '? x', "it's"],
  ...['  lead\nx', 'tab\there', 'NaN', 'true', 'True', 'item-1', 'a/b.c_d-e', 'Z'],
);
const text = fc.oneof(fc.string(), tricky, fc.stringMatching(/^[ -~\n]{0,12}$/));
const json = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(text, tie('v'), { maxKeys: 4 }),
  ),
})).v;

describe('renderYaml', () => {
  it("writes exactly what js-yaml's dump writes for the key-sorted value", () => {
    fc.assert(
      fc.property(json, (value) => {
        const rendered = renderYaml(value);
        expect(rendered).toEqual({
          ok: true,
          text: dump(sortKeys(value), { noRefs: true, lineWidth: -1 }),
        });
      }),
      { numRuns: 3000 },
    );
  }, 30_000);

  it('renders a value 500 levels deep in linear time', () => {
    let value: JsonValue = 'leaf\nwith lines';
    for (let i = 0; i < 500; i++) value = i % 3 === 0 ? [value, 1] : { k: value, 'a b': [] };
    const started = performance.now();
    const rendered = renderYaml(value);
    expect(performance.now() - started).toBeLessThan(200);
    expect(rendered.ok).toBe(true);
  });

  it('refuses deeper values and larger renderings', () => {
    let value: JsonValue = 1;
    for (let i = 0; i < 600; i++) value = { k: value };
    expect(renderYaml(value)).toEqual({ ok: false, reason: 'depth' });
    expect(renderYaml({ a: 'x'.repeat(1000) }, 500)).toEqual({ ok: false, reason: 'size' });
    expect(renderYaml('x'.repeat(1000), 500)).toEqual({ ok: false, reason: 'size' });
  });
});
