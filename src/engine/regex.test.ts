import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileRegex, RegexCache } from './regex.js';
import { regexEngine, REGEX_ENGINE_NAMES, useRegexEngine } from './re2-engine.js';
import { KubemodError } from '../errors/catalog.js';
import { compileMatchItem } from './match/index.js';

// The same table on both implementations (re2-engine.ts): the native addon and re2js.
describe.each(REGEX_ENGINE_NAMES)('RE2 regular expressions on %s', (engine) => {
  beforeAll(() => {
    useRegexEngine(engine);
  });
  afterAll(() => {
    useRegexEngine(undefined);
  });

  it('runs on the engine named', () => {
    expect(regexEngine().name).toBe(engine);
  });

  it('matches a pathological pattern against a 50,000-character value in linear time', () => {
    const value = 'a'.repeat(50_000) + '!';
    const started = performance.now();
    // Both patterns take exponential time in a backtracking engine on this input.
    expect(compileRegex('(a+)+$').test(value)).toBe(false);
    expect(compileRegex('^(a+)+$').test('a'.repeat(50_000))).toBe(true);
    expect(compileRegex('(a+)+b').test(value)).toBe(false);
    const item = compileMatchItem({ select: '$.v', matchRegex: '^(a|a)*(a+)+$' });
    expect(item.matches({ v: value })).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it.each([
    ['nginx:1\\.14\\..*', 'nginx:1.14.2', true],
    ['^nginx$', 'nginx:1', false],
    ['(?i)NGINX', 'nginx', true],
    ['(?P<repo>[^/]+)/(.*)', 'their-repo/app', true],
    ['\\d+', '٣', false],
    ['\\pL+', 'é', true],
    ['[[:alpha:]]+', 'abc', true],
  ])('Go/RE2 syntax %s on %s', (pattern, input, expected) => {
    expect(compileRegex(pattern).test(input)).toBe(expected);
  });

  it.each([['a(?=b)'], ['(a'], ['\\1'], ['a{1001}']])(
    'refuses %s with a catalogued error',
    (pattern) => {
      expect(() => compileRegex(pattern)).toThrow(KubemodError);
    },
  );

  it('keeps a bounded cache of dynamic patterns', () => {
    const cache = new RegexCache(2);
    const a = cache.get('a');
    cache.get('b');
    expect(cache.get('a')).toBe(a);
    cache.get('c');
    expect(cache.get('a')).toBe(a);
  });
});
