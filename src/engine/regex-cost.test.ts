import { describe, expect, it } from 'vitest';
import { compileRegex } from './regex.js';
import { MAX_PATTERN_COST, patternCost } from './regex-cost.js';
import { KubemodError } from '../errors/catalog.js';

describe('regex compile cost', () => {
  it.each([
    ['[a-z]{1,100}'.repeat(1000)],
    ['\\pL'.repeat(1000)],
    ['a?'.repeat(8000)],
    ['(?:[a-z]{1,10}){1,100}'],
  ])('refuses %s before RE2 compiles it, quickly', (pattern) => {
    const start = performance.now();
    expect(() => compileRegex(pattern)).toThrow(KubemodError);
    expect(() => compileRegex(pattern)).toThrow('too complex to compile');
    expect(performance.now() - start).toBeLessThan(200);
  });

  it.each([
    '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
    'nginx:.*',
    '^(?:docker\\.io/)?library/[a-z]+:\\d+\\.\\d+$',
    '\\p{Greek}+',
  ])('accepts the real-world pattern %s', (pattern) => {
    expect(patternCost(pattern)).toBeLessThan(MAX_PATTERN_COST);
    expect(compileRegex(pattern).source).toBe(pattern);
  });
});
