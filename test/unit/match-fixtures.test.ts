import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { formatFieldErrors } from '../../src/api/index.js';
import { validateModRule } from '../../src/engine/validate-modrule.js';
import { compileMatch } from '../../src/engine/match/index.js';

interface MatchCase {
  name: string;
  matches: boolean;
  resource: unknown;
}

const root = join(import.meta.dirname, '..', 'fixtures', 'match');
const rows = readdirSync(root).flatMap((dir) => {
  const modrule = load(readFileSync(join(root, dir, 'modrule.yaml'), 'utf8'));
  const cases = load(readFileSync(join(root, dir, 'cases.yaml'), 'utf8')) as MatchCase[];
  return cases.map((c) => ({ dir, modrule, ...c }));
});

describe('spec ModRule examples: match outcomes', () => {
  it('has fixtures', () => {
    expect(rows.length).toBeGreaterThan(30);
  });

  it.each(rows)('$dir: $name', ({ modrule, matches, resource }) => {
    const result = validateModRule(modrule);
    if (!result.ok) throw new Error(formatFieldErrors(result.errors));
    const match = compileMatch(result.modRule.spec.match);
    expect(match.matches(resource)).toBe(matches);
  });
});
