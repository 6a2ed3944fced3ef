import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const script = join(repoRoot, 'scripts/release/checksums.sh');
const work = mkdtempSync(join(tmpdir(), 'release-checksums-'));

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function assets(name: string, files: Record<string, string | Buffer>): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
  return dir;
}

describe('scripts/release/checksums.sh', () => {
  it('lists the SHA-256 of every asset, sorted by name, in sha256sum format', async () => {
    const dir = assets('ok', {
      'bundle.yaml': 'kind: Namespace\n',
      'kubemod-ts-1.0.0.tgz': Buffer.from([0x1f, 0x8b, 0, 1, 2]),
      'a file with spaces.txt': 'x',
      'checksums.txt': 'stale content that must be replaced\n',
    });
    await run('bash', [script, dir]);
    const lines = readFileSync(join(dir, 'checksums.txt'), 'utf8').trimEnd().split('\n');
    expect(lines).toEqual(
      ['a file with spaces.txt', 'bundle.yaml', 'kubemod-ts-1.0.0.tgz'].map(
        (name) => `${sha256(join(dir, name))}  ${name}`,
      ),
    );
    // What a user runs after downloading the release.
    const { stdout } = await run('sha256sum', ['--check', '--strict', 'checksums.txt'], {
      cwd: dir,
    });
    expect(stdout.trim().split('\n')).toHaveLength(3);
  });

  it('makes a changed asset fail sha256sum --check', async () => {
    const dir = assets('tampered', { 'bundle.yaml': 'image: a\n' });
    await run('bash', [script, dir]);
    writeFileSync(join(dir, 'bundle.yaml'), 'image: b\n');
    await expect(
      run('sha256sum', ['--check', 'checksums.txt'], { cwd: dir }),
    ).rejects.toMatchObject({ stdout: 'bundle.yaml: FAILED\n' });
  });

  it.each([
    ['an empty directory', (): string => assets('empty', {}), /no files in/],
    [
      'a subdirectory',
      (): string => {
        const dir = assets('nested', { 'bundle.yaml': 'x' });
        mkdirSync(join(dir, 'images'));
        return dir;
      },
      /images is not a regular file/,
    ],
    [
      'a symbolic link',
      (): string => {
        const dir = assets('link', { 'bundle.yaml': 'x' });
        symlinkSync('bundle.yaml', join(dir, 'alias.yaml'));
        return dir;
      },
      /alias.yaml is not a regular file/,
    ],
    ['a missing directory', (): string => join(work, 'missing'), /is not a directory/],
  ])('refuses %s', async (_name, setup, message) => {
    await expect(run('bash', [script, setup()])).rejects.toThrow(message);
  });
});

describe('scripts/release/release-env.sh', () => {
  const envScript = join(repoRoot, 'scripts/release/release-env.sh');
  const version = (
    JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

  it('derives the version, image and chart repository from the tag and owner', async () => {
    const { stdout } = await run('bash', [envScript, `v${version}`, 'KubeMod-TS']);
    expect(stdout).toBe(
      [
        `version=${version}`,
        'image=ghcr.io/kubemod-ts/kubemod-ts',
        'charts=oci://ghcr.io/kubemod-ts/charts',
        '',
      ].join('\n'),
    );
  });

  it.each([
    ['a tag that does not match package.json', 'v999.0.0', /does not match package.json version/],
    ['a tag without v', version, /is not v<major>.<minor>.<patch>/],
    ['a tag that is not a version', 'vnext', /is not v<major>.<minor>.<patch>/],
  ])('refuses %s', async (_name, tag, message) => {
    await expect(run('bash', [envScript, tag, 'kubemod-ts'])).rejects.toThrow(message);
  });
});
