import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failedRulesWarning } from './dragnet-handler.js';

const HEAD = 'kubemod-ts: ModRule(s) failed and were skipped: ';

describe('failedRulesWarning', () => {
  it('names the failed rules', () => {
    expect(failedRulesWarning(['team/a'])).toBe(`${HEAD}team/a`);
    expect(failedRulesWarning(['team/a', 'kubemod-system/b'])).toBe(
      `${HEAD}team/a, kubemod-system/b`,
    );
  });

  it('stays within 120 characters, counting the rules it cannot name', () => {
    const many = Array.from({ length: 30 }, (_, i) => `team/rule-${String(i)}`);
    const warning = failedRulesWarning(many);
    expect(warning.length).toBeLessThanOrEqual(120);
    expect(warning).toMatch(
      /^kubemod-ts: ModRule\(s\) failed and were skipped: team\/rule-0, .* \(\+\d+ more\)$/,
    );
    const named = warning
      .slice(HEAD.length)
      .replace(/ \(\+\d+ more\)$/, '')
      .split(', ');
    const more = Number(/\(\+(\d+) more\)$/.exec(warning)?.[1]);
    expect(named.length + more).toBe(30);
    const long = failedRulesWarning([`team/${'x'.repeat(300)}`, 'team/b']);
    expect(long.length).toBeLessThanOrEqual(120);
    expect(long).toMatch(/…\s\(\+1 more\)$/);
  });

  it('never exceeds 120 characters and accounts for every rule (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 1, maxLength: 80 }).map((s) => `ns/${s}`),
          {
            minLength: 1,
            maxLength: 40,
          },
        ),
        (rules) => {
          const warning = failedRulesWarning(rules);
          expect(warning.length).toBeLessThanOrEqual(120);
          expect(warning.startsWith(HEAD)).toBe(true);
        },
      ),
    );
  });
});
