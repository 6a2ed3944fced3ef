import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boundedWarning,
  MAX_RULE_WARNINGS,
  MAX_WARNING_BYTES,
  ruleWarnings,
} from './admission-warnings.js';

describe('boundedWarning', () => {
  it('keeps a short one-line warning as it is', () => {
    expect(boundedWarning('a/b: "no owner"')).toBe('a/b: "no owner"');
  });

  it('replaces control characters and cuts on a character boundary with …', () => {
    expect(boundedWarning('a\nb\tc\u0085d')).toBe('a b c d');
    const cut = boundedWarning('€'.repeat(100));
    expect(Buffer.byteLength(cut, 'utf8')).toBeLessThanOrEqual(MAX_WARNING_BYTES);
    expect(cut).toMatch(/^€+…$/);
  });

  it('is always one line within the byte limit (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const out = boundedWarning(text);
        expect(Buffer.byteLength(out, 'utf8')).toBeLessThanOrEqual(MAX_WARNING_BYTES);
        expect(out).not.toMatch(/[\n\r]/);
      }),
    );
    // A hundred runs take milliseconds; the limit is for a heavily loaded CI machine.
  }, 30_000);
});

describe('ruleWarnings', () => {
  it('names at most MAX_RULE_WARNINGS rules and counts the rest', () => {
    const many = Array.from({ length: MAX_RULE_WARNINGS + 3 }, (_, i) => `a/r${String(i)}`);
    const out = ruleWarnings(many);
    expect(out).toHaveLength(MAX_RULE_WARNINGS + 1);
    expect(out.at(-1)).toBe('kubemod-ts: 3 more ModRule warning(s); see kubemod-ts dryrun');
    expect(ruleWarnings([])).toEqual([]);
  });
});
