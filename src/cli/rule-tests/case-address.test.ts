import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseLine, caseLines, caseSelector, wildcardMatch } from './case-address.js';
describe('caseLines: the line each case of a test file starts on', () => {
  it.each<[string, string, readonly number[], number]>([
    [
      'block list, indented',
      'rules: [r.yaml]\ncases:\n  - name: a\n    x: 1\n  - name: b\n',
      [3, 5],
      2,
    ],
    ['items at column 0', 'cases:\n- name: a\n- name: b\nrules: []\n', [2, 3], 1],
    [
      'comments, blank lines, nested lists and block scalars',
      'cases:  # the cases\n\n  # first\n  - name: a\n    expect:\n      patch:\n        - {op: add}\n    note: |\n      - not an item\n  - name: b\n',
      [4, 10],
      1,
    ],
    ['ends at the next top-level key', 'cases:\n  - name: a\nrules:\n  - r.yaml\n', [2], 1],
    ['CRLF line ends', 'cases:\r\n  - name: a\r\n  - name: b\r\n', [2, 3], 1],
    ['flow style: the key line', 'rules: []\ncases: [{name: a}, {name: b}]\n', [], 2],
    ['JSON: the cases key line', '{\n  "rules": [],\n  "cases": [{"name": "a"}]\n}\n', [], 3],
    ['JSON on one line', '{"rules": [], "cases": [{"name": "a"}]}', [], 1],
    ['no cases at all', 'rules: []\n', [], 1],
  ])('%s', (_what, text, lines, fallback) => {
    const found = caseLines(text);
    expect([...found]).toEqual(lines);
    expect(found.fallback).toBe(fallback);
  });

  it('places a case beyond the items found at the fallback line', () => {
    const found = caseLines('cases: [{name: a}]\n');
    expect(caseLine(found, 0)).toBe(1);
    const block = caseLines('x: 1\ncases:\n  - name: a\n');
    expect([caseLine(block, 0), caseLine(block, 1)]).toEqual([3, 2]);
  });
});

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
