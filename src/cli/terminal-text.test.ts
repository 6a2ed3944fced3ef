import fc from 'fast-check';
import { dump, load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { FORBIDDEN } from './terminal-controls.test-support.js';
import { safeJson, safeYaml } from '../engine/machine-text.js';
import { terminalLines, terminalText } from '../engine/terminal-text.js';

/** Strings rich in the characters above, next to ordinary and non-BMP text. */
const hostileText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\u001b', '\u0007', '\r', '\n', '\t', '\u0000', '\u007f', '\u009b', '\u0085'),
    fc.constantFrom('\u202e', '\u2066', '\u2069', '\u200f', '\u061c', '\u2028', '\\', '[', ']'),
    fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
    fc.constantFrom('a', 'é', '日', '😀', ' '),
  ),
  maxLength: 40,
});

describe('terminalText', () => {
  it.each([
    ['plain text', 'web-1 in shop', 'web-1 in shop'],
    ['backslashes and brackets', 'a\\x1b [2J] C:\\dir', 'a\\x1b [2J] C:\\dir'],
    ['a window-title OSC', '\u001b]0;pwned\u0007', '\\x1b]0;pwned\\x07'],
    ['a clear-screen CSI', 'x\u001b[2Jy', 'x\\x1b[2Jy'],
    ['an 8-bit CSI (C1)', '\u009b31mred', '\\x9b31mred'],
    ['NEL and DEL', '\u0085\u007f', '\\x85\\x7f'],
    ['a carriage return', 'safe\rEVIL', 'safe\\rEVIL'],
    ['a line feed (single line)', 'one\ntwo', 'one\\ntwo'],
    ['a tab, kept', 'a\tb', 'a\tb'],
    ['NUL', 'a\u0000b', 'a\\x00b'],
    ['a right-to-left override', 'access\u202e level', 'access\\u202e level'],
    ['isolates', '\u2066x\u2069', '\\u2066x\\u2069'],
    ['marks', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
    ['line and paragraph separators', '\u2028\u2029', '\\u2028\\u2029'],
    ['non-ASCII printable text, kept', 'café 日本 😀 \u00a0', 'café 日本 😀 \u00a0'],
  ])('%s', (_what, input, printed) => {
    expect(terminalText(input)).toBe(printed);
  });

  it('keeps line feeds in multi-line text, and escapes a carriage return before one', () => {
    expect(terminalLines('- a\r\n+ \u001b[31mb\n')).toBe('- a\\r\n+ \\x1b[31mb\n');
  });

  it('never leaves a control or bidi character, and changes no printable text', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const one = terminalText(text);
        expect(one).not.toMatch(FORBIDDEN);
        expect(one).not.toContain('\n');
        expect(terminalLines(text)).not.toMatch(FORBIDDEN);
        expect(terminalLines(text).split('\n')).toHaveLength(text.split('\n').length);
        if (!FORBIDDEN.test(text) && !text.includes('\n')) expect(one).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('loses nothing: every character escaped is named by its code', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const unescaped = terminalText(text).replace(
          /\\x([0-9a-f]{2})|\\u([0-9a-f]{4})|\\n|\\r/g,
          (m: string, x?: string, u?: string) =>
            m === '\\n'
              ? '\n'
              : m === '\\r'
                ? '\r'
                : String.fromCharCode(parseInt(x ?? u ?? '', 16)),
        );
        // Text that already held such escapes reads back as the character: not injective.
        const plain = text.replace(/\\(x[0-9a-f]{2}|u[0-9a-f]{4}|n|r)/g, '');
        if (plain === text) expect(unescaped).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('safeJson and safeYaml', () => {
  const sample = {
    title: 'x\u202ey',
    ['k\u2066ey']: [
      'multi\nline\u202e\ntext',
      'esc\u001b[2J',
      'c1\u009b',
      'nel\u0085',
      'del\u007f',
    ],
    n: 1,
    plain: 'ok',
  };

  it('read the same to a parser and hold no raw control or bidi character', () => {
    fc.assert(
      fc.property(fc.dictionary(hostileText, fc.oneof(hostileText, fc.array(hostileText))), (v) => {
        const json = safeJson(v);
        expect(json.replaceAll('\n', '')).not.toMatch(FORBIDDEN);
        expect(JSON.parse(json)).toEqual(v);
        const yaml = safeYaml(v);
        expect(yaml.replaceAll('\n', '')).not.toMatch(FORBIDDEN);
        expect(load(yaml)).toEqual(v);
      }),
      { numRuns: 500 },
    );
    expect(JSON.parse(safeJson(sample))).toEqual(sample);
    expect(load(safeYaml(sample))).toEqual(sample);
  });

  it('write what JSON.stringify and js-yaml write for text without such characters', () => {
    const ordinary = { a: 'b', list: ['multi\nline', 'tab\t', 'café'], n: 2 };
    expect(safeJson(ordinary)).toBe(JSON.stringify(ordinary, null, 2));
    expect(safeYaml(ordinary)).toBe(dump(ordinary, { lineWidth: -1, noRefs: true }));
  });

  it('escape ESC and C1 in YAML with its own escapes (js-yaml quotes them)', () => {
    expect(safeYaml({ v: 'a\u001b]0;t\u0007\u009b' })).toBe('v: "a\\e]0;t\\a\\x9B"\n');
    expect(safeYaml({ v: 'a\u202eb' })).toBe('v: "a\\u202eb"\n');
  });
});
