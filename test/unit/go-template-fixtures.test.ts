import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { compileTemplate } from '../../src/engine/template/index.js';

/**
 * Fixture tables of templates with what Go's text/template + Sprig v3.2.2 renders for them,
 * written by test/upstream-compare/compare-templates.ts --write-fixture (which runs the real Go
 * code): kubemod-ts must render the same text, or fail where Go fails.
 */
interface GoTemplateTable {
  namespace: string;
  target: Record<string, unknown>;
  cases: { template: string; selectedItem?: unknown; go: string | { error: string } }[];
}

const root = join(import.meta.dirname, '..', 'fixtures', 'go-templates');
const tables = readdirSync(root)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

function render(table: GoTemplateTable, c: GoTemplateTable['cases'][number]): string | Error {
  try {
    return compileTemplate(c.template).render({
      Target: structuredClone(table.target),
      Namespace: table.namespace,
      SelectedItem: c.selectedItem ?? null,
      SelectKeyParts: [],
    });
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

describe('templates render as Go text/template + Sprig does', () => {
  it.each(tables)(
    '%s',
    (file) => {
      const table = load(readFileSync(join(root, file), 'utf8')) as GoTemplateTable;
      expect(table.cases.length).toBeGreaterThan(100);
      const mismatches: { template: string; go: unknown; ours: string }[] = [];
      for (const c of table.cases) {
        const ours = render(table, c);
        const same =
          typeof c.go === 'string' ? ours === c.go : ours instanceof Error && ours.name !== '';
        if (!same)
          mismatches.push({
            template: c.template,
            go: c.go,
            ours: ours instanceof Error ? `error: ${ours.message}` : ours,
          });
      }
      expect(mismatches).toEqual([]);
    },
    60_000,
  );
});
