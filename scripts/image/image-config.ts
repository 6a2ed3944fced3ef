// What makes the image kubemod-ts's: user, entrypoint, environment, ports and OCI labels. The
// values that vary per build (version, revision, time, layer digests) come from build-image.sh.
import type { ImageSpec, LayerSpec } from './write-oci-layout.js';

/** Per-build facts, gathered by scripts/image/build-image.sh. */
export interface BuildInfo {
  readonly layoutDir: string;
  readonly dockerManifestPath: string;
  readonly name: string;
  readonly version: string;
  readonly revision: string;
  /** RFC 3339, from SOURCE_DATE_EPOCH (the commit time). */
  readonly created: string;
  readonly architecture: 'amd64' | 'arm64';
  readonly sourceUrl: string;
  readonly nodeVersion: string;
  readonly debianSuite: string;
  /** `name=version` of every Debian package in the base layer, comma-separated. */
  readonly debianPackages: string;
  readonly layers: readonly LayerSpec[];
}

/** The distroless convention: a fixed non-root uid/gid that /etc/passwd names `nonroot`. */
export const IMAGE_USER = '65532:65532';

export function imageSpec(info: BuildInfo): ImageSpec {
  return {
    layoutDir: info.layoutDir,
    dockerManifestPath: info.dockerManifestPath,
    reference: `${info.name}:${info.version}`,
    created: info.created,
    architecture: info.architecture,
    ...(info.architecture === 'arm64' ? { variant: 'v8' } : {}),
    layers: info.layers,
    user: IMAGE_USER,
    env: [
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      'NODE_ENV=production',
      'SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt',
    ],
    // Absolute so that a runtime's working-directory override cannot break the start.
    entrypoint: ['node', '/app/dist/src/cli/main.js'],
    cmd: ['operator'],
    workingDir: '/app',
    exposedPorts: ['9443/tcp', '8081/tcp'],
    labels: {
      'org.opencontainers.image.title': info.name,
      'org.opencontainers.image.description':
        'A TypeScript drop-in implementation of the KubeMod mutating operator for Kubernetes',
      'org.opencontainers.image.source': info.sourceUrl,
      'org.opencontainers.image.version': info.version,
      'org.opencontainers.image.revision': info.revision,
      'org.opencontainers.image.licenses': 'Apache-2.0',
      'org.opencontainers.image.created': info.created,
      'org.opencontainers.image.base.name': `debian:${info.debianSuite} (mmdebstrap --variant=extract)`,
      'io.kubemod-ts.node.version': info.nodeVersion,
      'io.kubemod-ts.debian.packages': info.debianPackages,
    },
  };
}
