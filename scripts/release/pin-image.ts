// Rewrites the operator image of bundle.yaml to `<repository>@sha256:<digest>` for a release, so
// the installed image is exactly the one that was built, signed and attested (a tag can be moved,
// a digest cannot). The bundle is parsed to find the image; the text is then edited on that one
// line only (comments and layout stay as generated) and re-parsed to prove nothing else changed.
import { isDeepStrictEqual } from 'node:util';
import { parseDocuments, type BundleObject } from '../bundle-sources.js';

export const OPERATOR_DEPLOYMENT = 'kubemod-operator';
export const OPERATOR_CONTAINER = 'operator';

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const REPOSITORY =
  /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+$/;

interface Container {
  name?: unknown;
  image?: unknown;
}

function operatorContainer(doc: BundleObject): Container | undefined {
  if (doc.kind !== 'Deployment' || doc.metadata?.name !== OPERATOR_DEPLOYMENT) return undefined;
  const spec = doc.spec as { template?: { spec?: { containers?: unknown } } } | undefined;
  const containers = spec?.template?.spec?.containers;
  if (!Array.isArray(containers)) return undefined;
  return (containers as Container[]).find((c) => c.name === OPERATOR_CONTAINER);
}

/** The operator container's image in the parsed documents; throws naming what is missing. */
export function findOperatorImage(docs: readonly BundleObject[], source: string): string {
  const found = docs.map(operatorContainer).filter((c) => c !== undefined);
  if (found.length !== 1) {
    throw new Error(
      `${source}: expected one Deployment ${OPERATOR_DEPLOYMENT} with a container ` +
        `${OPERATOR_CONTAINER}, found ${String(found.length)}`,
    );
  }
  const image = found[0]?.image;
  if (typeof image !== 'string' || image === '') {
    throw new Error(
      `${source}: Deployment ${OPERATOR_DEPLOYMENT}, container ${OPERATOR_CONTAINER}: ` +
        'spec.template.spec.containers[].image is missing',
    );
  }
  return image;
}

/** `ghcr.io/org/name:tag` or `...@sha256:…` → `ghcr.io/org/name` (a registry port is kept). */
export function repositoryOf(image: string): string {
  const withoutDigest = image.split('@')[0] ?? image;
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > lastSlash ? withoutDigest.slice(0, colon) : withoutDigest;
}

export interface PinOptions {
  readonly digest: string;
  /** Defaults to the repository of the bundle's current image. */
  readonly repository?: string | undefined;
  readonly source?: string;
}

/** Returns the bundle text with the operator image pinned by digest; throws on any doubt. */
export function pinBundleImage(text: string, options: PinOptions): string {
  const source = options.source ?? 'bundle.yaml';
  const digest = options.digest.trim();
  if (!DIGEST.test(digest)) {
    throw new Error(
      `digest ${JSON.stringify(digest)}: expected sha256: and 64 lowercase hex digits`,
    );
  }
  const docs = parseDocuments(text, source);
  const current = findOperatorImage(docs, source);
  const repository = options.repository ?? repositoryOf(current);
  if (!REPOSITORY.test(repository)) {
    throw new Error(
      `repository ${JSON.stringify(repository)}: expected a lowercase registry/path without tag`,
    );
  }
  const pinned = `${repository}@${digest}`;
  const line = new RegExp(`^(\\s*(?:-\\s+)?image:\\s*)${escapeRegExp(current)}\\s*$`, 'gm');
  const matches = text.match(line) ?? [];
  if (matches.length !== 1) {
    throw new Error(
      `${source}: expected exactly one line "image: ${current}", found ${String(matches.length)}`,
    );
  }
  const result = text.replace(line, (_all, prefix: string) => `${prefix}${pinned}`);
  const after = parseDocuments(result, source);
  if (findOperatorImage(after, source) !== pinned || !sameExceptImage(docs, after, pinned)) {
    throw new Error(`${source}: pinning changed more than the operator image`);
  }
  return result;
}

function sameExceptImage(
  before: readonly BundleObject[],
  after: readonly BundleObject[],
  pinned: string,
): boolean {
  const expected = structuredClone(before) as BundleObject[];
  for (const doc of expected) {
    const container = operatorContainer(doc);
    if (container !== undefined) container.image = pinned;
  }
  return isDeepStrictEqual(expected, after);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
