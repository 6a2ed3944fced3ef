import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BuildInfo, imageSpec } from '../../../scripts/image/image-config.js';
import { writeOciLayout } from '../../../scripts/image/write-oci-layout.js';

// The OCI layout writer behind npm run image, on stand-in layer files: content addressing, the
// references docker load and OCI tools follow, the image config the bundle relies on, and
// byte-identical output for identical input. (test/e2e/image.e2e.test.ts runs the real image.)

const root = mkdtempSync(join(tmpdir(), 'kubemod-oci-test-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const layerFiles = ['base', 'node', 'app'].map((name) => {
  const path = join(root, `${name}.tar.gz`);
  writeFileSync(path, `stand-in ${name} layer`);
  return path;
});

function info(dir: string, overrides: Partial<BuildInfo> = {}): BuildInfo {
  return {
    layoutDir: join(root, dir, 'oci'),
    dockerManifestPath: join(root, dir, 'manifest.json'),
    name: 'kubemod-ts',
    version: '1.2.3',
    revision: '0123456789abcdef0123456789abcdef01234567',
    created: '2026-01-02T03:04:05Z',
    architecture: 'amd64',
    sourceUrl: 'https://example.com/kubemod-ts',
    nodeVersion: '24.21.0',
    debianSuite: 'bookworm',
    debianPackages: 'libc6=2.36-9+deb12u14,tzdata=2026b-0+deb12u1',
    layers: layerFiles.map((path, i) => ({
      path,
      diffId: `sha256:${String(i).repeat(64)}`,
      createdBy: `layer ${String(i)}`,
    })),
    ...overrides,
  };
}

function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

function blob(layoutDir: string, digest: string): Buffer {
  return readFileSync(join(layoutDir, 'blobs', digest.replace(':', '/')));
}

interface Manifest {
  config: { digest: string; size: number };
  layers: { digest: string; size: number; mediaType: string }[];
}

describe('writeOciLayout with the kubemod-ts image config', () => {
  it('writes a content-addressed layout that index.json and manifest.json reference', () => {
    const build = info('a');
    const manifest = writeOciLayout(imageSpec(build));
    const layout = build.layoutDir;
    for (const name of readdirSync(join(layout, 'blobs', 'sha256'))) {
      expect(sha256(blob(layout, `sha256:${name}`))).toBe(`sha256:${name}`);
    }
    const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as {
      manifests: { digest: string; annotations: Record<string, string>; platform: object }[];
    };
    expect(index.manifests).toHaveLength(1);
    expect(index.manifests[0]?.digest).toBe(manifest.digest);
    expect(index.manifests[0]?.platform).toEqual({ architecture: 'amd64', os: 'linux' });
    expect(index.manifests[0]?.annotations).toEqual({
      'io.containerd.image.name': 'docker.io/library/kubemod-ts:1.2.3',
      'org.opencontainers.image.ref.name': '1.2.3',
    });
    const parsed = JSON.parse(blob(layout, manifest.digest).toString('utf8')) as Manifest;
    expect(parsed.layers.map((l) => l.digest)).toEqual(
      layerFiles.map((path) => sha256(readFileSync(path))),
    );
    expect(parsed.layers.every((l) => l.mediaType.endsWith('tar+gzip'))).toBe(true);

    const docker = JSON.parse(readFileSync(build.dockerManifestPath, 'utf8')) as {
      Config: string;
      RepoTags: string[];
      Layers: string[];
    }[];
    expect(docker[0]?.RepoTags).toEqual(['kubemod-ts:1.2.3']);
    for (const path of [docker[0]?.Config ?? 'missing', ...(docker[0]?.Layers ?? [])]) {
      expect(existsSync(join(layout, path)), path).toBe(true);
    }
  });

  it('gives the image the user, entrypoint, diff ids and labels the deployment relies on', () => {
    const build = info('b', { architecture: 'arm64' });
    const manifest = writeOciLayout(imageSpec(build));
    const parsed = JSON.parse(blob(build.layoutDir, manifest.digest).toString('utf8')) as Manifest;
    const config = JSON.parse(blob(build.layoutDir, parsed.config.digest).toString('utf8')) as {
      architecture: string;
      variant: string;
      created: string;
      config: { User: string; Entrypoint: string[]; Cmd: string[]; Labels: Record<string, string> };
      rootfs: { diff_ids: string[] };
    };
    expect([config.architecture, config.variant, config.created]).toEqual([
      'arm64',
      'v8',
      '2026-01-02T03:04:05Z',
    ]);
    expect(config.config.User).toBe('65532:65532');
    expect(config.config.Entrypoint).toEqual(['node', '/app/dist/src/cli/main.js']);
    expect(config.config.Cmd).toEqual(['operator']);
    expect(config.rootfs.diff_ids).toEqual(build.layers.map((l) => l.diffId));
    expect(config.config.Labels).toMatchObject({
      'org.opencontainers.image.version': '1.2.3',
      'org.opencontainers.image.revision': build.revision,
      'org.opencontainers.image.created': build.created,
      'org.opencontainers.image.licenses': 'Apache-2.0',
      'org.opencontainers.image.source': build.sourceUrl,
      'io.kubemod-ts.debian.packages': build.debianPackages,
    });
  });

  it('is deterministic: same inputs, same digest; another revision, another digest', () => {
    const first = writeOciLayout(imageSpec(info('c')));
    const again = writeOciLayout(imageSpec(info('d')));
    const otherRevision = writeOciLayout(imageSpec(info('e', { revision: 'f'.repeat(40) })));
    expect(again.digest).toBe(first.digest);
    expect(otherRevision.digest).not.toBe(first.digest);
  });
});
