import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// scripts/release/assemble.sh in a scratch copy of the repository (its scripts, bundle.yaml and
// node_modules), with images made of real OCI layouts. The chart is the CHART side's job: here a
// stand-in scripts/chart/package.sh that writes a chart archive and prints its path, the
// interface assemble.sh relies on.

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'release-assemble-'));
const repo = join(work, 'repo');

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A minimal image directory as `npm run image` writes it; returns its manifest digest. */
function image(dir: string, arch: string): string {
  const blobs = join(dir, 'oci', 'blobs', 'sha256');
  mkdirSync(blobs, { recursive: true });
  const config = JSON.stringify({ architecture: arch, os: 'linux', rootfs: { type: 'layers' } });
  writeFileSync(join(blobs, sha256(config)), config);
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: {
      mediaType: 'application/vnd.oci.image.config.v1+json',
      digest: `sha256:${sha256(config)}`,
      size: config.length,
    },
    layers: [],
  });
  const digest = `sha256:${sha256(manifest)}`;
  writeFileSync(join(blobs, sha256(manifest)), manifest);
  writeFileSync(
    join(dir, 'oci', 'index.json'),
    JSON.stringify({ schemaVersion: 2, manifests: [{ digest, size: manifest.length }] }),
  );
  writeFileSync(join(dir, 'oci', 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
  writeFileSync(join(dir, 'digest.txt'), `${digest}\n`);
  writeFileSync(join(dir, 'kubemod-ts.tar'), `archive ${arch}`);
  writeFileSync(join(dir, 'sbom.cdx.json'), JSON.stringify({ bomFormat: 'CycloneDX' }));
  writeFileSync(join(dir, 'packages.txt'), `libc6 2.36 ${arch}\n`);
  return digest;
}

/** An npm package tarball as `npm pack` writes it (package/package.json), of `version`. */
function cliPackage(version: string): string {
  const dir = mkdtempSync(join(work, 'cli-'));
  mkdirSync(join(dir, 'package'));
  writeFileSync(
    join(dir, 'package', 'package.json'),
    JSON.stringify({ name: 'kubemod-ts', version }),
  );
  execFileSync('tar', ['-czf', join(dir, 'cli.tgz'), '-C', dir, 'package']);
  return join(dir, 'cli.tgz');
}

function assemble(
  images: string,
  out: string,
  digest: string,
  cli: string = cliPackage('1.2.3'),
): ReturnType<typeof run> {
  return run('bash', [
    join(repo, 'scripts/release/assemble.sh'),
    ...['--version', '1.2.3', '--image', 'ghcr.io/acme/kubemod-ts', '--digest', digest],
    ...['--images', images, '--cli-package', cli, '--out', out],
  ]);
}

const indexDigest = `sha256:${'ab'.repeat(32)}`;

beforeAll(() => {
  mkdirSync(join(repo, 'scripts', 'chart'), { recursive: true });
  cpSync(join(repoRoot, 'scripts/release'), join(repo, 'scripts/release'), { recursive: true });
  cpSync(join(repoRoot, 'scripts/bundle-sources.ts'), join(repo, 'scripts/bundle-sources.ts'));
  cpSync(join(repoRoot, 'bundle.yaml'), join(repo, 'bundle.yaml'));
  for (const script of ['switch-from-kubemod.sh', 'switch-back-to-kubemod.sh'])
    cpSync(join(repoRoot, 'scripts', script), join(repo, 'scripts', script));
  cpSync(join(repoRoot, 'package.json'), join(repo, 'package.json'));
  cpSync(join(repoRoot, 'schemas'), join(repo, 'schemas'), { recursive: true });
  symlinkSync(join(repoRoot, 'node_modules'), join(repo, 'node_modules'));
  writeFileSync(
    join(repo, 'scripts/chart/package.sh'),
    [
      'set -e',
      'dir="$(mktemp -d)"; mkdir "$dir/kubemod-ts"',
      'printf "version: %s\\nimageDigest: %s\\n" "$1" "$2" > "$dir/kubemod-ts/Chart.yaml"',
      'tar -czf "$dir/kubemod-ts-$1.tgz" -C "$dir" kubemod-ts',
      'echo "packaged"; echo "$dir/kubemod-ts-$1.tgz"',
    ].join('\n'),
  );
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('scripts/release/assemble.sh', () => {
  it('writes the pinned bundle, the chart, the image archives and SBOMs, the CLI package, the schemas and their checksums', async () => {
    const images = join(work, 'ok');
    image(join(images, 'amd64'), 'amd64');
    image(join(images, 'arm64'), 'arm64');
    const out = join(work, 'ok-out');
    await assemble(images, out, indexDigest);
    expect(readdirSync(out).sort()).toEqual([
      'bundle.yaml',
      'checksums.txt',
      'externaldataprovider-api-v1beta1.json',
      'kubemod-test.json',
      'kubemod-ts-1.2.3-linux-amd64.debian-packages.txt',
      'kubemod-ts-1.2.3-linux-amd64.sbom.cdx.json',
      'kubemod-ts-1.2.3-linux-amd64.tar',
      'kubemod-ts-1.2.3-linux-arm64.debian-packages.txt',
      'kubemod-ts-1.2.3-linux-arm64.sbom.cdx.json',
      'kubemod-ts-1.2.3-linux-arm64.tar',
      'kubemod-ts-1.2.3.tgz',
      'kubemod-ts-cli-1.2.3.tgz',
      'modrule-api-v1beta1.json',
      'switch-back-to-kubemod.sh',
      'switch-from-kubemod.sh',
    ]);
    expect(readFileSync(join(out, 'modrule-api-v1beta1.json'), 'utf8')).toBe(
      readFileSync(join(repoRoot, 'schemas/modrule-api-v1beta1.json'), 'utf8'),
    );
    expect(readFileSync(join(out, 'bundle.yaml'), 'utf8')).toContain(
      `          image: ghcr.io/acme/kubemod-ts@${indexDigest}\n`,
    );
    expect(readFileSync(join(out, 'kubemod-ts-1.2.3-linux-arm64.tar'), 'utf8')).toBe(
      'archive arm64',
    );
    const { stdout } = await run('sha256sum', ['--check', '--strict', 'checksums.txt'], {
      cwd: out,
    });
    expect(stdout.trim().split('\n')).toHaveLength(14);
    const chart = await run('tar', ['-xzOf', join(out, 'kubemod-ts-1.2.3.tgz')]);
    expect(chart.stdout).toBe(`version: 1.2.3\nimageDigest: ${indexDigest}\n`);
  }, 60_000);

  it('ships the switch script, which applies only a bundle pinned by digest', async () => {
    const out = join(work, 'ok-out'); // written by the test above
    const script = join(out, 'switch-from-kubemod.sh');
    expect(readFileSync(script, 'utf8')).toContain('\nrelease_version="1.2.3"\n');
    // kubectl stubbed: it prints what it was asked, so the script runs to its end offline.
    const bin = mkdtempSync(join(tmpdir(), 'kubectl-stub-'));
    writeFileSync(join(bin, 'kubectl'), '#!/bin/sh\necho "kubectl $*" >&2\n', { mode: 0o755 });
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
    await expect(
      run('bash', [script, join(repoRoot, 'bundle.yaml')], { cwd: out, env }),
    ).rejects.toThrow(
      /does not pin the operator image by digest; use the bundle.yaml of release v1\.2\.3/,
    );
    const { stderr } = await run('bash', [script, 'bundle.yaml'], { cwd: out, env });
    expect(stderr).toContain('kubectl apply -f bundle.yaml');
  }, 30_000);

  it.each([
    [
      'a digest.txt the layout does not list',
      (dir: string): void => {
        writeFileSync(join(dir, 'digest.txt'), `sha256:${'0'.repeat(64)}\n`);
      },
      /oci\/index.json does not list sha256:0{64}/,
    ],
    [
      'a manifest blob that does not hash to its name',
      (dir: string): void => {
        const digest = readFileSync(join(dir, 'digest.txt'), 'utf8').trim().slice(7);
        writeFileSync(join(dir, 'oci/blobs/sha256', digest), '{}');
      },
      /does not hash to its name/,
    ],
    [
      'a missing SBOM',
      (dir: string): void => {
        rmSync(join(dir, 'sbom.cdx.json'));
      },
      /sbom.cdx.json is missing/,
    ],
    [
      'an SBOM that is not CycloneDX',
      (dir: string): void => {
        writeFileSync(join(dir, 'sbom.cdx.json'), '{"spdxVersion":"SPDX-2.3"}');
      },
      /is not a CycloneDX document/,
    ],
  ])(
    'refuses an image with %s',
    async (name, spoil, message) => {
      const images = join(work, name.replace(/\W+/g, '-'));
      image(join(images, 'amd64'), 'amd64');
      spoil(join(images, 'amd64'));
      await expect(assemble(images, join(work, 'bad-out'), indexDigest)).rejects.toThrow(message);
    },
    30_000,
  );

  it('refuses a CLI package of another version, and a file that is no npm package', async () => {
    const images = join(work, 'cli');
    image(join(images, 'amd64'), 'amd64');
    await expect(
      assemble(images, join(work, 'cli-out'), indexDigest, cliPackage('1.2.2')),
    ).rejects.toThrow(/is kubemod-ts@1\.2\.2, not kubemod-ts@1\.2\.3/);
    const notPackage = join(work, 'not-a-package.tgz');
    writeFileSync(notPackage, 'text');
    await expect(assemble(images, join(work, 'cli-out'), indexDigest, notPackage)).rejects.toThrow(
      /is not an npm package tarball/,
    );
  }, 30_000);

  it('refuses a digest that is not sha256 and a directory that is not an architecture', async () => {
    const images = join(work, 'odd');
    image(join(images, 's390x'), 's390x');
    await expect(assemble(images, join(work, 'odd-out'), 'latest')).rejects.toThrow(
      /--digest latest is not sha256/,
    );
    await expect(assemble(images, join(work, 'odd-out'), indexDigest)).rejects.toThrow(
      /s390x: expected amd64 or arm64/,
    );
  }, 30_000);
});
