import fc from 'fast-check';
import NativeRE2 from 're2';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/playground/build-page.js';
import BrowserRE2 from './re2js-adapter.js';
import { collectCorpus } from './regex-corpus.test-support.js';

/** The RE2 operations the engine performs (src/engine/regex.ts, template regex functions). */
interface RE2Like {
  lastIndex: number;
  test(input: string): boolean;
  exec(input: string): RegExpExecArray | null;
}
type RE2Constructor = new (pattern: string, flags: string) => RE2Like;

/** Everything the engine can observe of one pattern on some inputs, as plain data. */
function observe(RE2: RE2Constructor, pattern: string, inputs: readonly string[]): unknown {
  let single: RE2Like;
  let global: RE2Like;
  try {
    single = new RE2(pattern, 'u');
    global = new RE2(pattern, 'gu');
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
  return inputs.map((input) => {
    single.lastIndex = 0;
    const all = allMatches(global, input);
    return {
      input,
      test: single.test(input),
      exec: plain(single.exec(input)),
      all,
      replaceAll: replaceAll(all, input, '<$0>'),
      split: split(all, input),
    };
  });
}

function plain(m: RegExpExecArray | null): unknown {
  if (m === null) return null;
  return { groups: [...m], index: m.index, named: m.groups === undefined ? null : { ...m.groups } };
}

/** The engine's match loop (functions-regex.ts eachMatch): Go's stepping past empty matches. */
function allMatches(re: RE2Like, s: string): { index: number; groups: unknown[] }[] {
  const out: { index: number; groups: unknown[] }[] = [];
  re.lastIndex = 0;
  let prevEnd = -1;
  while (out.length < 64) {
    const m = re.exec(s);
    if (m === null) break;
    const text = m[0];
    if (text === '') {
      re.lastIndex = m.index + ((s.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1);
      if (m.index === prevEnd) {
        if (m.index >= s.length) break;
        continue;
      }
    }
    out.push({ index: m.index, groups: [...m] });
    prevEnd = m.index + text.length;
    if (m.index >= s.length) break;
  }
  return out;
}

function replaceAll(matches: ReturnType<typeof allMatches>, s: string, marker: string): string {
  let out = '';
  let last = 0;
  for (const { index, groups } of matches) {
    const whole = String(groups[0]);
    out += s.slice(last, index) + marker.replace('$0', whole);
    last = index + whole.length;
  }
  return out + s.slice(last);
}

function split(matches: ReturnType<typeof allMatches>, s: string): string[] {
  const out: string[] = [];
  let beg = 0;
  for (const { index, groups } of matches) {
    const end = index + String(groups[0]).length;
    if (end !== 0) out.push(s.slice(beg, index));
    beg = end;
  }
  out.push(s.slice(beg));
  return out;
}

/** Values rule authors match: names, images, kinds, labels, plus Unicode and line breaks. */
const INPUTS: readonly string[] = [
  '',
  'a',
  'abc',
  'ABC',
  'aaa!',
  'nginx',
  'nginx:1.14.2',
  'nginx:latest',
  'registry.example.com/team/app:1.2',
  'bitnami/redis:7',
  'their-repo/app',
  'quay.io/x',
  'team-a',
  'kube-system',
  'Deployment',
  'StatefulSet',
  '123.45.67.89',
  '80',
  'web-12',
  'John Smith',
  'é',
  '٣',
  'Ωμέγα',
  'x😀y',
  'line1\nline2',
  'a/b/c',
  'map[a:1]',
];

describe('re2js adapter against the native re2 addon', () => {
  const corpus = collectCorpus(REPO_ROOT);

  it('reads a corpus from the fixtures, samples, README and tests', () => {
    const froms = new Set(corpus.map((entry) => entry.from.split('/')[0]));
    expect(corpus.length).toBeGreaterThan(50);
    for (const place of ['test', 'samples', 'README.md', 'src']) expect(froms).toContain(place);
  });

  it('gives identical results for every pattern of the corpus', () => {
    const differing = corpus.filter(
      ({ pattern }) =>
        JSON.stringify(observe(BrowserRE2, pattern, INPUTS)) !==
        JSON.stringify(observe(NativeRE2 as unknown as RE2Constructor, pattern, INPUTS)),
    );
    for (const { pattern, from } of differing) {
      expect(
        observe(BrowserRE2, pattern, INPUTS),
        `${JSON.stringify(pattern)} from ${from}`,
      ).toEqual(observe(NativeRE2 as unknown as RE2Constructor, pattern, INPUTS));
    }
    expect(differing).toEqual([]);
  });

  it('gives identical results and errors for syntax edge cases', () => {
    const patterns = [
      'a(',
      '\\q',
      '[z-a]',
      'a**',
      'x{2,1}',
      'a{1001}',
      '(?=a)',
      '(?<n>x)(?P<m>y)?',
      '\\u0041\\u{42}',
      '\\cJ',
      '\\p{Letter}+\\p{Script=Greek}',
      '\\PN',
      '[[:^alpha:]]',
      '(?i)straße',
      '(?s).',
      '(?m)^b$',
      '\\bword\\b',
      '\\Aa\\z',
      'a/b',
      '',
      '\\',
      ')',
      '(?P<n>a)(?P<n>b)',
      '(?P<>a)',
      '[a',
      '*',
      'x*?y+?',
      '\\x{1F600}',
      '\\Q.*\\E',
    ];
    for (const pattern of patterns) {
      expect(observe(BrowserRE2, pattern, INPUTS), JSON.stringify(pattern)).toEqual(
        observe(NativeRE2 as unknown as RE2Constructor, pattern, INPUTS),
      );
    }
  });

  it('gives identical results for generated patterns and inputs', () => {
    const atom = fc.constantFrom(
      'a',
      'b',
      'c',
      '.',
      '\\d',
      '\\w',
      '\\s',
      '\\W',
      '[a-c]',
      '[^b]',
      '\\pL',
      '\\p{Greek}',
      'é',
      '😀',
      '-',
      '\\.',
      '^',
      '$',
      '\\b',
    );
    const pattern: fc.Arbitrary<string> = fc.letrec<{ re: string }>((tie) => ({
      re: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        atom,
        fc.tuple(tie('re'), tie('re')).map(([x, y]) => x + y),
        fc.tuple(tie('re'), tie('re')).map(([x, y]) => `${x}|${y}`),
        fc
          .tuple(tie('re'), fc.constantFrom('*', '+', '?', '{2}', '{1,3}', '*?', '+?', '??'))
          .map(([x, q]) => `(?:${x})${q}`),
        tie('re').map((x) => `(${x})`),
        tie('re').map((x) => `(?P<g>${x})`),
        tie('re').map((x) => `(?i:${x})`),
      ),
    })).re;
    const input = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', 'A', '1', ' ', '-', '\n', 'é', 'Ω', '😀', '.'),
      maxLength: 12,
    });
    fc.assert(
      fc.property(pattern, fc.array(input, { maxLength: 4 }), (re, inputs) => {
        expect(observe(BrowserRE2, re, inputs)).toEqual(
          observe(NativeRE2 as unknown as RE2Constructor, re, inputs),
        );
      }),
      { numRuns: 400 },
    );
  });
});
