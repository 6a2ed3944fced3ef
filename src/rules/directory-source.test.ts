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

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}
