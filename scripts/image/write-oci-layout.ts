// Writes an OCI image layout (https://github.com/opencontainers/image-spec/blob/main/image-layout.md)
// from layer tarballs that scripts/image/build-image.sh made deterministically: the layer blobs,
// the image config, the manifest and index.json, plus the manifest.json `docker load` reads, in
// the layout Docker 25+ itself writes with `docker save` (older Dockers read only manifest.json,
// newer ones and containerd read index.json). Every JSON document is serialised with fixed key
// order and no timestamps other than the given `created`, so the same inputs give the same digests.
// scripts/image/assemble-image.ts calls it.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LayerSpec {
  /** gzip-compressed layer tarball. */
  readonly path: string;
  /** sha256 of the uncompressed tarball (`sha256:<hex>`). */
  readonly diffId: string;
  /** What made the layer, for the config's history. */
  readonly createdBy: string;
}

export interface ImageSpec {
  /** The OCI layout directory to (re)create. */
  readonly layoutDir: string;
  /** Where to write the manifest.json for `docker load`, inside the layout tree. */
  readonly dockerManifestPath: string;
  /** `name:tag` for docker load and the index annotations, e.g. `kubemod-ts:0.1.0`. */
  readonly reference: string;
  /** RFC 3339 time, from SOURCE_DATE_EPOCH. */
  readonly created: string;
  readonly architecture: string;
  readonly variant?: string;
  readonly layers: readonly LayerSpec[];
  readonly user: string;
  readonly env: readonly string[];
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  readonly workingDir: string;
  readonly exposedPorts: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
}

export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
}

const MEDIA = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

function sortedObject(entries: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Writes a JSON blob into blobs/sha256 and returns its descriptor. */
function writeJsonBlob(layoutDir: string, mediaType: string, value: unknown): Descriptor {
  const data = Buffer.from(JSON.stringify(value));
  const digest = sha256(data);
  writeFileSync(join(layoutDir, 'blobs', 'sha256', digest.slice('sha256:'.length)), data);
  return { mediaType, digest, size: data.length };
}

function copyLayerBlob(layoutDir: string, layer: LayerSpec): Descriptor {
  const data = readFileSync(layer.path);
  const digest = sha256(data);
  copyFileSync(layer.path, join(layoutDir, 'blobs', 'sha256', digest.slice('sha256:'.length)));
  return { mediaType: MEDIA.layer, digest, size: statSync(layer.path).size };
}

function imageConfig(spec: ImageSpec): unknown {
  return {
    created: spec.created,
    architecture: spec.architecture,
    ...(spec.variant === undefined ? {} : { variant: spec.variant }),
    os: 'linux',
    config: {
      User: spec.user,
      ExposedPorts: Object.fromEntries(spec.exposedPorts.map((port) => [port, {}])),
      Env: spec.env,
      Entrypoint: spec.entrypoint,
      Cmd: spec.cmd,
      WorkingDir: spec.workingDir,
      Labels: sortedObject(spec.labels),
    },
    rootfs: { type: 'layers', diff_ids: spec.layers.map((layer) => layer.diffId) },
    history: spec.layers.map((layer) => ({ created: spec.created, created_by: layer.createdBy })),
  };
}

/** Writes the layout and returns the manifest's descriptor. */
export function writeOciLayout(spec: ImageSpec): Descriptor {
  rmSync(spec.layoutDir, { recursive: true, force: true });
  mkdirSync(join(spec.layoutDir, 'blobs', 'sha256'), { recursive: true });
  writeFileSync(
    join(spec.layoutDir, 'oci-layout'),
    JSON.stringify({ imageLayoutVersion: '1.0.0' }),
  );
  const layers = spec.layers.map((layer) => copyLayerBlob(spec.layoutDir, layer));
  const config = writeJsonBlob(spec.layoutDir, MEDIA.config, imageConfig(spec));
  const manifest = writeJsonBlob(spec.layoutDir, MEDIA.manifest, {
    schemaVersion: 2,
    mediaType: MEDIA.manifest,
    config,
    layers,
    annotations: {
      'org.opencontainers.image.created': spec.created,
    },
  });
  const [name, tag] = splitReference(spec.reference);
  writeFileSync(
    join(spec.layoutDir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA.index,
      manifests: [
        {
          ...manifest,
          platform: {
            architecture: spec.architecture,
            os: 'linux',
            ...(spec.variant === undefined ? {} : { variant: spec.variant }),
          },
          annotations: {
            // containerd (ctr import, kind load image-archive) and Docker 25+ name the image from
            // this one; skopeo/umoci/oras address it as <layout>:<tag> through ref.name.
            'io.containerd.image.name': `docker.io/library/${name}:${tag}`,
            'org.opencontainers.image.ref.name': tag,
          },
        },
      ],
    }),
  );
  const blobPath = (digest: string): string => `blobs/sha256/${digest.slice('sha256:'.length)}`;
  writeFileSync(
    spec.dockerManifestPath,
    JSON.stringify([
      {
        Config: blobPath(config.digest),
        RepoTags: [spec.reference],
        Layers: layers.map((layer) => blobPath(layer.digest)),
      },
    ]),
  );
  return manifest;
}

function splitReference(reference: string): [string, string] {
  const colon = reference.lastIndexOf(':');
  if (colon <= 0 || colon === reference.length - 1) {
    throw new Error(`image reference ${reference}: expected <name>:<tag>`);
  }
  return [reference.slice(0, colon), reference.slice(colon + 1)];
}
