import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Reading the OCI image layout that scripts/image/build-image.sh writes, and unpacking it into a
// runtime bundle with umoci (which checks every blob against its digest on the way).

const run = promisify(execFile);

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

export interface ImageConfig {
  architecture: string;
  os: string;
  created: string;
  config: {
    User: string;
    Env: string[];
    Entrypoint: string[];
    Cmd: string[];
    WorkingDir: string;
    Labels: Record<string, string>;
  };
}

export interface OciImage {
  /** `name:tag` from index.json's io.containerd.image.name, without the docker.io/library prefix. */
  readonly reference: string;
  /** The tag (org.opencontainers.image.ref.name), what `umoci unpack --image <layout>:<tag>` takes. */
  readonly tag: string;
  readonly manifestDigest: string;
  readonly config: ImageConfig;
  /** Sum of the compressed layer sizes in bytes. */
  readonly compressedLayerBytes: number;
}

function blobPath(layoutDir: string, digest: string): string {
  return join(layoutDir, 'blobs', digest.replace(':', '/'));
}

function readJsonBlob(layoutDir: string, digest: string): unknown {
  return JSON.parse(readFileSync(blobPath(layoutDir, digest), 'utf8'));
}

/** The single image an OCI layout's index.json names. Throws naming the layout when absent. */
export function readOciImage(layoutDir: string): OciImage {
  let index: { manifests?: Descriptor[] };
  try {
    index = JSON.parse(readFileSync(join(layoutDir, 'index.json'), 'utf8')) as typeof index;
  } catch (err) {
    throw new Error(
      `no OCI image layout at ${layoutDir} (${(err as Error).message}); build it with npm run image`,
      { cause: err },
    );
  }
  const entry = index.manifests?.[0];
  const tag = entry?.annotations?.['org.opencontainers.image.ref.name'];
  const name = entry?.annotations?.['io.containerd.image.name'];
  if (entry === undefined || tag === undefined || name === undefined) {
    throw new Error(`${layoutDir}/index.json: expected one tagged manifest`);
  }
  const manifest = readJsonBlob(layoutDir, entry.digest) as {
    config: Descriptor;
    layers: Descriptor[];
  };
  return {
    reference: name.replace(/^docker\.io\/library\//, ''),
    tag,
    manifestDigest: entry.digest,
    config: readJsonBlob(layoutDir, manifest.config.digest) as ImageConfig,
    compressedLayerBytes: manifest.layers.reduce(
      (sum, layer) => sum + statSync(blobPath(layoutDir, layer.digest)).size,
      0,
    ),
  };
}

/** `umoci unpack`: bundleDir/rootfs plus a runtime config.json derived from the image config. */
export async function unpackImage(
  layoutDir: string,
  tag: string,
  bundleDir: string,
): Promise<void> {
  await run('umoci', ['unpack', '--image', `${layoutDir}:${tag}`, bundleDir], {
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** Bytes on disk under a directory (du), for the unpacked image size. */
export async function diskUsageBytes(dir: string): Promise<number> {
  const { stdout } = await run('du', ['-sb', dir]);
  return Number(stdout.split('\t')[0]);
}
