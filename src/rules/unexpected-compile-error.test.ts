import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadModRule } from './load-modrule.js';
import type { JsonObject } from '../engine/json.js';
import { RuleStore } from '../engine/store.js';
import { createSilentLogger } from '../observability/logger.js';
import { main } from '../cli/main.js';
import { checkModRule } from './compile-modrule.js';
import { loadRuleDirectory } from './directory-source.js';

// compileRule throwing something it does not catalogue (a stack overflow compiling an enormous
// expression, as a 4,000-term select once did) must stay that one rule's field error at every
// entry point: the validating webhook's check, the operator's sync, `serve`'s rules directory
// and the dryrun CLI. The compiler is made to throw for rules named `explodes`.
vi.mock('../engine/rule.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../engine/rule.js')>();
  return {
    ...original,
    compileRule: (...args: Parameters<typeof original.compileRule>) => {
      if (args[0].metadata.name === 'explodes') {
        throw new RangeError('Maximum call stack size exceeded');
      }
      return original.compileRule(...args);
    },
  };
});

function rule(name: string): JsonObject {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace: 'team' },
    spec: {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
      patch: [{ op: 'add', path: '/metadata/labels/x', value: '"y"' }],
    },
  };
}

const OPTIONS = { clusterNamespace: 'kubemod-system', defaultNamespace: 'default' };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubemod-explodes-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('an error the compiler does not catalogue', () => {
  it('is a field error of the rule in checkModRule (the validating webhook and /v1/dryrun)', () => {
    const check = checkModRule(rule('explodes'), OPTIONS);
    expect(check).toEqual({
      ok: false,
      key: 'team/explodes',
      errors: [
        {
          field: 'spec',
          message:
            'the rule is too large or too deeply nested to compile (Maximum call stack size exceeded)',
          code: 'KM2001',
        },
      ],
    });
    expect(checkModRule(rule('fine'), OPTIONS).ok).toBe(true);
  });

  it('is the rule’s CompileFailed status in the operator’s sync, not a throw', () => {
    const store = new RuleStore();
    const options = { store, clusterNamespace: 'kubemod-system', logger: createSilentLogger() };
    loadModRule(rule('fine'), options);
    const result = loadModRule(rule('explodes'), options);
    expect(result).toMatchObject({ ready: false, reason: 'CompileFailed' });
    expect(result.message).toMatch(/^spec: the rule is too large/);
    expect(store.get('team', 'fine')).toBeDefined();
    expect(store.get('team', 'explodes')).toBeUndefined();
  });

  it('refuses only that document of a rules file; the other documents load', async () => {
    const yaml = [rule('one'), rule('explodes'), rule('two')]
      .map((r) => JSON.stringify(r))
      .join('\n---\n');
    await writeFile(join(dir, 'rules.yaml'), yaml);
    const load = await loadRuleDirectory(dir, { clusterNamespace: 'kubemod-system' });
    expect(
      load.store
        .all()
        .map((r) => r.key)
        .sort(),
    ).toEqual(['team/one', 'team/two']);
    expect(load.errors).toEqual([
      `${join(dir, 'rules.yaml')}: document 2 (ModRule team/explodes): spec: the rule is too large or too deeply nested to compile (Maximum call stack size exceeded)`,
    ]);
  });

  it('is a one-line error of the dryrun CLI, exit 1, no stack trace', async () => {
    await writeFile(join(dir, 'rules.yaml'), JSON.stringify(rule('explodes')));
    await writeFile(
      join(dir, 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c, namespace: team }\n',
    );
    let stderr = '';
    const code = await main(
      ['dryrun', '--modrule', join(dir, 'rules.yaml'), '--resource', join(dir, 'cm.yaml')],
      { stdout: () => undefined, stderr: (t) => (stderr += t), env: {} },
    );
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^kubemod-ts dryrun: .*document 1 \(ModRule team\/explodes\): spec: /);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
