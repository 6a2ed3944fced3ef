import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  inputsHash,
  lintInputs,
  stampMatches,
  writeStamp,
} from '../../scripts/lint/eslint-stamp.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function hashOf(files: Record<string, string>, runtime = 'v20'): string {
  const names = lintInputs(Object.keys(files));
  return inputsHash(
    names,
    (file) => (files[file] === undefined ? undefined : Buffer.from(files[file])),
    runtime,
  );
}

describe('the ESLint stamp', () => {
  const base = {
    'src/a.ts': 'export const a = 1;\n',
    'src/b.ts': 'export const b = 2;\n',
    'tsconfig.json': '{}',
    'package-lock.json': '{"lockfileVersion":3}',
  };

  it('takes sources, configs and the lockfile, not docs or manifests', () => {
    expect(
      lintInputs(['README.md', 'src/a.ts', 'eslint.config.js', 'x.yaml', 'package.json']),
    ).toEqual(['eslint.config.js', 'package.json', 'src/a.ts']);
  });

  it('changes with any byte of any input, a renamed or added file, or the Node version', () => {
    const hash = hashOf(base);
    expect(hashOf({ ...base })).toBe(hash);
    expect(hashOf({ ...base, 'src/a.ts': 'export const a = 2;\n' })).not.toBe(hash);
    expect(hashOf({ ...base, 'package-lock.json': '{"lockfileVersion":2}' })).not.toBe(hash);
    expect(hashOf({ ...base, 'src/c.ts': '' })).not.toBe(hash);
    const { 'src/b.ts': moved, ...rest } = base;
    expect(hashOf({ ...rest, 'src/bb.ts': moved })).not.toBe(hash);
    expect(hashOf(base, 'v24')).not.toBe(hash);
    // Contents cannot slide from one file into the next.
    expect(hashOf({ 'src/a.ts': 'xy', 'src/b.ts': 'z' })).not.toBe(
      hashOf({ 'src/a.ts': 'x', 'src/b.ts': 'yz' }),
    );
  });

  it('matches only the hash it recorded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemod-lint-'));
    dirs.push(dir);
    const stamp = join(dir, 'cache', 'eslint-passed');
    expect(stampMatches(stamp, 'abc')).toBe(false);
    writeStamp(stamp, 'abc');
    expect(stampMatches(stamp, 'abc')).toBe(true);
    expect(stampMatches(stamp, 'abd')).toBe(false);
  });
});
