import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../engine/json.js';
import { createListSplitter } from './list-splitter.js';

/** Feeds `body` cut at the given byte offsets; returns the items, their heads and the rest. */
function split(
  body: Buffer,
  cuts: readonly number[],
): { items: JsonObject[]; heads: JsonObject[]; rest: JsonObject } {
  const items: JsonObject[] = [];
  const heads: JsonObject[] = [];
  const splitter = createListSplitter((item, head) => {
    items.push(item);
    heads.push(head);
  });
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    splitter.write(body.subarray(at, cut));
    at = cut;
  }
  splitter.write(body.subarray(at));
  return { items, heads, rest: splitter.end() };
}

const jsonObject = fc.dictionary(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.jsonValue({ maxDepth: 3 }),
  { maxKeys: 5 },
) as fc.Arbitrary<JsonObject>;

describe('createListSplitter', () => {
  it('yields each item as it completes, with the head, and the list without its items', () => {
    const list = {
      kind: 'ModRuleList',
      apiVersion: 'api.kubemod.io/v1beta1',
      metadata: { resourceVersion: '42', continue: '' },
      items: [
        { metadata: { name: 'a' }, spec: { s: 'brace } bracket ] quote " slash \\ [{' } },
        { metadata: { name: 'b' }, spec: { list: [[], {}, [{ x: 'é☃😀' }]] } },
      ],
    };
    const body = Buffer.from(JSON.stringify(list, null, 2));
    const seen: string[] = [];
    const splitter = createListSplitter((item) => {
      seen.push((item.metadata as { name: string }).name);
    });
    const secondStart = body.indexOf('"b"');
    splitter.write(body.subarray(0, secondStart));
    // The first item is handed over before the second one has arrived.
    expect(seen).toEqual(['a']);
    splitter.write(body.subarray(secondStart));
    expect(seen).toEqual(['a', 'b']);
    expect(splitter.end()).toEqual({ ...list, items: [] });
  });

  it('passes the head (kind, apiVersion, metadata) known when the items begin', () => {
    const body = Buffer.from(
      JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: [{ a: 1 }] }),
    );
    const { heads } = split(body, []);
    expect(heads).toEqual([{ kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: [] }]);
  });

  it('gives the same items and rest wherever the body is cut, whatever the values', () => {
    fc.assert(
      fc.property(
        fc.array(jsonObject, { maxLength: 6 }),
        jsonObject,
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        (items, metadata, pretty, rawCuts) => {
          const list = { kind: 'XList', apiVersion: 'v1', metadata, items };
          const body = Buffer.from(JSON.stringify(list, null, pretty ? 1 : 0));
          const cuts = rawCuts.map((c) => c % (body.length + 1));
          const result = split(body, cuts);
          expect(result.items).toEqual(JSON.parse(JSON.stringify(items)));
          expect(result.rest).toEqual(JSON.parse(JSON.stringify({ ...list, items: [] })));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a body that ends early or an item that is not JSON', () => {
    const body = Buffer.from('{"kind":"XList","items":[{"a":1},{"b":');
    expect(() => split(body, [])).toThrow(/ended in the middle of a value/);
    expect(() => split(Buffer.from('{"items":[{"a":tru}]}'), [])).toThrow(SyntaxError);
  });
});
