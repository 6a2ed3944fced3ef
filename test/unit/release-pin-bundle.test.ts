import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocuments } from '../../scripts/bundle-sources.js';
import {
  findOperatorImage,
  pinBundleImage,
  repositoryOf,
} from '../../scripts/release/pin-image.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const bundleText = readFileSync(join(repoRoot, 'bundle.yaml'), 'utf8');
const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;
const work = mkdtempSync(join(tmpdir(), 'pin-bundle-'));

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('pinBundleImage on the real bundle.yaml', () => {
  const pinned = pinBundleImage(bundleText, { digest });

  it('pins the operator image of the bundle to the digest, in the same repository', () => {
    const image = findOperatorImage(parseDocuments(bundleText, 'bundle.yaml'), 'bundle.yaml');
    expect(image).toMatch(/^ghcr\.io\/kubemod-ts\/kubemod-ts:\d+\.\d+\.\d+/);
    expect(findOperatorImage(parseDocuments(pinned, 'pinned'), 'pinned')).toBe(
      `ghcr.io/kubemod-ts/kubemod-ts@${digest}`,
    );
  });

  it('changes exactly one line and keeps comments and layout', () => {
    const before = bundleText.split('\n');
    const after = pinned.split('\n');
    expect(after).toHaveLength(before.length);
    const changed = before.flatMap((line, i) => (line === after[i] ? [] : [[line, after[i]]]));
    expect(changed).toEqual([
      [
        expect.stringMatching(/^ {10}image: ghcr\.io\/kubemod-ts\/kubemod-ts:/),
        `          image: ghcr.io/kubemod-ts/kubemod-ts@${digest}`,
      ],
    ]);
  });

  it('uses another repository when given one (a fork publishes under its owner)', () => {
    const forked = pinBundleImage(bundleText, { digest, repository: 'ghcr.io/someone/kubemod-ts' });
    expect(findOperatorImage(parseDocuments(forked, 'forked'), 'forked')).toBe(
      `ghcr.io/someone/kubemod-ts@${digest}`,
    );
  });

  it('re-pins an already pinned bundle', () => {
    const other = `sha256:${'f'.repeat(64)}`;
    const again = pinBundleImage(pinned, { digest: other });
    expect(again).toContain(`image: ghcr.io/kubemod-ts/kubemod-ts@${other}\n`);
    expect(again).not.toContain(digest);
  });
});

describe('pinBundleImage refuses what it cannot do safely', () => {
  const withoutImage = bundleText.replace(/^(\s*)image: .*$/m, '$1# no image');
  const image = /^\s*image: (\S+)$/m.exec(bundleText)?.[1] ?? '';
  // Another document naming the same image on an `image:` line: rewriting text blindly would
  // change it too, so the edit must refuse.
  const twice = `${bundleText}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  image: ${image}\n`;

  it.each([
    ['a digest that is not sha256', { digest: 'sha256:abc' }, /expected sha256: and 64/],
    ['a tag instead of a digest', { digest: '0.2.0' }, /expected sha256/],
    [
      'a repository with a tag',
      { digest, repository: 'ghcr.io/x/kubemod-ts:1' },
      /expected a lowercase registry\/path without tag/,
    ],
    [
      'an upper-case repository',
      { digest, repository: 'ghcr.io/X/kubemod-ts' },
      /expected a lowercase registry/,
    ],
  ])('%s', (_name, options, message) => {
    expect(() => pinBundleImage(bundleText, options)).toThrow(message);
  });

  it('a bundle whose operator container has no image', () => {
    expect(() => pinBundleImage(withoutImage, { digest })).toThrow(
      /Deployment kubemod-operator, container operator: .*image is missing/,
    );
  });

  it('a bundle without the operator Deployment', () => {
    const noDeployment = bundleText.replace('kind: Deployment\n', 'kind: StatefulSet\n');
    expect(() => pinBundleImage(noDeployment, { digest })).toThrow(
      /expected one Deployment kubemod-operator with a container operator, found 0/,
    );
  });

  it('an image line that is not unique in the text', () => {
    expect(image).not.toBe('');
    expect(() => pinBundleImage(twice, { digest })).toThrow(
      `expected exactly one line "image: ${image}", found 2`,
    );
  });
});

describe('repositoryOf', () => {
  it.each([
    ['ghcr.io/kubemod-ts/kubemod-ts:0.1.0', 'ghcr.io/kubemod-ts/kubemod-ts'],
    [`ghcr.io/kubemod-ts/kubemod-ts@${digest}`, 'ghcr.io/kubemod-ts/kubemod-ts'],
    ['localhost:5000/kubemod-ts:1', 'localhost:5000/kubemod-ts'],
    ['localhost:5000/kubemod-ts', 'localhost:5000/kubemod-ts'],
  ])('%s → %s', (image, repository) => {
    expect(repositoryOf(image)).toBe(repository);
  });
});

describe('scripts/release/pin-bundle.ts (the command the release runs)', () => {
  const script = join(repoRoot, 'scripts/release/pin-bundle.ts');
  const tsx = join(repoRoot, 'node_modules/.bin/tsx');

  it('writes the pinned bundle where it is told, leaving bundle.yaml alone', async () => {
    const out = join(work, 'release', 'bundle.yaml');
    const { stdout } = await run(tsx, [script, digest, '--out', out], { cwd: repoRoot });
    expect(stdout).toContain(`pinned to ${digest}`);
    expect(readFileSync(out, 'utf8')).toBe(pinBundleImage(bundleText, { digest }));
    expect(readFileSync(join(repoRoot, 'bundle.yaml'), 'utf8')).toBe(bundleText);
  }, 30_000);

  it('fails with the reason and writes nothing for a bad digest', async () => {
    const out = join(work, 'bad', 'bundle.yaml');
    await expect(run(tsx, [script, 'latest', '--out', out], { cwd: repoRoot })).rejects.toThrow(
      /pin-bundle: digest "latest": expected sha256/,
    );
    expect(() => readFileSync(out)).toThrow(/ENOENT/);
  }, 30_000);
});
