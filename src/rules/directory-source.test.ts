import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../observability/logger.js';
import {
  createDirectoryRuleSource,
  loadRuleDirectory,
  type DirectoryRuleSource,
} from './directory-source.js';

const rule = (name: string, extra = ''): string => `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: ${name}
${extra}spec:
  type: Patch
  match:
    - select: '$.kind'
  patch:
    - op: add
      path: /metadata/labels/x
      value: '"y"'
`;

let dir: string;
let source: DirectoryRuleSource | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubemod-rules-'));
});
afterEach(async () => {
  source?.close();
  source = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('loadRuleDirectory', () => {
  it('loads every document, reports invalid ones by file, document and field, and keeps the rest', async () => {
    await writeFile(
      join(dir, 'a.yaml'),
      `${rule('one')}---\n${rule('two', '  namespace: team\n')}`,
    );
    await mkdir(join(dir, 'nested'));
    await writeFile(
      join(dir, 'nested', 'b.yml'),
      `${rule('three', '  namespace: kubemod-system\n')}---\n${rule('broken').replace("select: '$.kind'", "select: '$.['")}`,
    );
    await writeFile(join(dir, 'c.yaml'), 'key: [unclosed');
    await writeFile(join(dir, 'README.md'), '# not a rule');
    const load = await loadRuleDirectory(dir, { clusterNamespace: 'kubemod-system' });
    expect(load.files).toEqual(['a.yaml', 'c.yaml', join('nested', 'b.yml')]);
    expect(
      load.store
        .all()
        .map((r) => r.key)
        .sort(),
    ).toEqual(['default/one', 'kubemod-system/three', 'team/two']);
    expect(load.errors).toHaveLength(2);
    expect(load.errors[0]).toMatch(new RegExp(`^${join(dir, 'c.yaml')}: not valid YAML: `));
    expect(load.errors[1]).toMatch(
      new RegExp(
        `^${join(dir, 'nested', 'b.yml')}: document 2 \\(ModRule default/broken\\): spec\\.match\\[0\\]\\.select: `,
      ),
    );
  });

  it('keeps the first definition of a rule defined twice', async () => {
    await writeFile(join(dir, 'a.yaml'), rule('same'));
    await writeFile(join(dir, 'b.yaml'), rule('same'));
    const load = await loadRuleDirectory(dir, { clusterNamespace: 'kubemod-system' });
    expect(load.store.size).toBe(1);
    expect(load.errors).toEqual([
      `${join(dir, 'b.yaml')}: ModRule default/same is already defined by an earlier file; ignored`,
    ]);
  });

  it('refuses a missing directory with a catalogued error', async () => {
    await expect(
      loadRuleDirectory(join(dir, 'missing'), { clusterNamespace: 'kubemod-system' }),
    ).rejects.toMatchObject({ code: 'KM6001' });
  });
});

describe('createDirectoryRuleSource', () => {
  it('becomes ready after the initial load and swaps in a fresh store when files change', async () => {
    await writeFile(join(dir, 'a.yaml'), rule('one'));
    const loads: number[] = [];
    source = createDirectoryRuleSource({
      dir,
      clusterNamespace: 'kubemod-system',
      logger: createLogger({ level: 'silent' }),
      debounceMs: 20,
      onLoad: (load) => loads.push(load.store.size),
    });
    expect(source.ready()).toBe(false);
    await source.start();
    expect(source.ready()).toBe(true);
    const first = source.store();
    expect(first.size).toBe(1);
    await writeFile(join(dir, 'b.yaml'), rule('two'));
    await waitFor(() => source?.store().size === 2);
    expect(first.size).toBe(1); // the old store is left untouched: swapped, not mutated
    await rm(join(dir, 'a.yaml'));
    await waitFor(() => source?.store().size === 1);
    expect(source.store().get('default', 'two')).toBeDefined();
    expect(loads[0]).toBe(1);
  });
});

describe('a rules file caught half-written', () => {
  it('keeps its last good rules until it parses again, and logs why', async () => {
    const file = join(dir, 'team.yaml');
    await writeFile(file, `${rule('one')}---\n${rule('two')}`);
    await writeFile(join(dir, 'other.yaml'), rule('three'));
    const lines: string[] = [];
    source = createDirectoryRuleSource({
      dir,
      clusterNamespace: 'kubemod-system',
      logger: createLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } }),
      debounceMs: 10_000, // reloads are driven by the test
    });
    await source.start();
    const keys = (): string[] => (source?.store().all() ?? []).map((r) => r.key).sort();
    expect(keys()).toEqual(['default/one', 'default/three', 'default/two']);

    // Cut mid-document: not valid YAML.
    const whole = `${rule('one')}---\n${rule('two')}`;
    await writeFile(file, whole.slice(0, whole.indexOf("select: '$.kind'") + 12));
    const half = await source.reload();
    expect(keys()).toEqual(['default/one', 'default/three', 'default/two']);
    expect(half.kept).toEqual(['team.yaml']);
    expect(half.errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${file}: not valid YAML: .*; keeping its last good ModRule\\(s\\) \\(2\\) until it parses again$`,
        ),
      ),
    ]);
    expect(lines.some((l) => l.includes('keeping its last good ModRule(s) (2)'))).toBe(true);

    // Half-written again on the next reload: still the same last good rules.
    expect((await source.reload()).kept).toEqual(['team.yaml']);
    expect(keys()).toEqual(['default/one', 'default/three', 'default/two']);

    // Parses again: its new content replaces the old.
    await writeFile(file, rule('four'));
    await source.reload();
    expect(keys()).toEqual(['default/four', 'default/three']);

    // Parses, with one invalid document: the valid documents load, the invalid one is reported
    // (an invalid document does not bring back an older version of its rule).
    await writeFile(
      file,
      `${rule('four')}---\n${rule('five').replace("select: '$.kind'", "select: '$.['")}`,
    );
    const partial = await source.reload();
    expect(keys()).toEqual(['default/four', 'default/three']);
    expect(partial.kept).toEqual([]);
    expect(partial.errors).toEqual([expect.stringContaining('document 2 (ModRule default/five)')]);

    // Deleted: its rules go.
    await rm(file);
    await source.reload();
    expect(keys()).toEqual(['default/three']);
  });

  it('compiles again only the files whose text changed', async () => {
    await writeFile(join(dir, 'a.yaml'), rule('one'));
    await writeFile(join(dir, 'b.yaml'), rule('two'));
    const first = await loadRuleDirectory(dir, { clusterNamespace: 'kubemod-system' });
    await writeFile(join(dir, 'a.yaml'), rule('one')); // rewritten, same text
    await writeFile(join(dir, 'b.yaml'), rule('three'));
    const second = await loadRuleDirectory(dir, {
      clusterNamespace: 'kubemod-system',
      previous: first.lastGood,
      previousParsed: first.parsed,
    });
    // The unchanged file's compiled rule is the very same object; the changed one is new.
    expect(second.store.get('default', 'one')).toBe(first.store.get('default', 'one'));
    expect(second.store.get('default', 'two')).toBeUndefined();
    expect(second.store.get('default', 'three')).toBeDefined();
  });

  it('loads nothing from a file that has never parsed', async () => {
    await writeFile(join(dir, 'a.yaml'), 'key: [unclosed');
    const load = await loadRuleDirectory(dir, {
      clusterNamespace: 'kubemod-system',
      previous: new Map([['b.yaml', []]]),
    });
    expect(load.store.size).toBe(0);
    expect(load.kept).toEqual([]);
    expect(load.errors).toEqual([expect.stringMatching(/a\.yaml: not valid YAML: /)]);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}
