import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseYamlDocuments, parseYamlValue } from './yaml-value.js';

// parseYamlValue takes a rendered value that spells a plain string without the YAML parser
// (issue 27: js-yaml cost 20–60 µs per value). It must read every text as the parser does;
// parseYamlDocuments always goes through the parser.

const run = (chars: string): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...chars.split('')), minLength: 1, maxLength: 12 });
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const PLAIN = `${LETTERS}0123456789._/-`;

describe('plain-string values', () => {
  it('reads texts of the fast path exactly as the YAML parser does', () => {
    const text = fc
      .tuple(
        fc.constantFrom(...LETTERS.split('')),
        fc.array(fc.tuple(fc.constantFrom('', ':'), run(PLAIN)), { maxLength: 4 }),
      )
      .map(([first, parts]) => first + parts.map(([sep, part]) => sep + part).join(''));
    fc.assert(
      fc.property(text, (t) => {
        expect(parseYamlValue(t)).toEqual(parseYamlDocuments(t)[0]);
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves go-yaml words, numbers, maps and the like to the parser', () => {
    for (const t of [
      'yes',
      'No',
      'ON',
      'off',
      'y',
      'null',
      'Null',
      'true',
      'FALSE',
      'a:',
      'a: b',
      'a #b',
      '0x1F',
      '1e3',
      '~',
      'mirror.example.com/bitnami/redis:7.2',
      'http://example.com/a',
      'key:value:more',
    ]) {
      expect(parseYamlValue(t), t).toEqual(parseYamlDocuments(t)[0]);
    }
    expect(parseYamlValue('yes')).toBe(true);
    expect(parseYamlValue('a: b')).toEqual({ a: 'b' });
    expect(parseYamlValue('mirror.example.com/bitnami/redis:7.2')).toBe(
      'mirror.example.com/bitnami/redis:7.2',
    );
  });
});
