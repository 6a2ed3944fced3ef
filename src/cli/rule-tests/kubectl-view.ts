import { parseManifestDocuments } from '../../engine/manifest-documents.js';
import { isRecord } from './test-file-checks.js';

/**
 * A test file holds two kinds of YAML. Its own fields, expectations and inline ModRules are read
 * like every ModRule file (YAML 1.2, as `dryrun --modrule` and `PUT /v1/dryrun` read rules). The
 * Kubernetes manifests it gives inline (`resource`, `oldResource`, `syntheticRefs`, `cluster`,
 * `expect.patched`) are read as kubectl reads a manifest (see parseManifestDocuments), so that
 * `data: {flag: yes}` is `true` in a test exactly as it is in the cluster, in `dryrun` and in
 * the playground. The file is therefore parsed twice; this is the second reading.
 */

/** The fields of a case (or of the file's top) that hold manifests. */
const MANIFEST_FIELDS = ['resource', 'oldResource', 'syntheticRefs', 'cluster'] as const;

/** The whole test file read as kubectl reads manifests, or why it cannot be. */
export interface KubectlView {
  readonly top: unknown;
  readonly error: string | undefined;
}

export function readKubectlView(text: string, file: string): KubectlView {
  const parsed = parseManifestDocuments(
    text,
    `${file} (its manifests, read as kubectl reads them)`,
  );
  return { top: parsed.documents[0], error: parsed.errors[0] };
}

/**
 * `item` (a case, or the file's top) with its manifest fields taken from `kubectl`, the same
 * place in the second reading. Paths to manifest files are strings in both readings; those files
 * are read by parseManifestDocuments themselves.
 */
export function withKubectlManifests(
  item: Record<string, unknown>,
  kubectl: unknown,
): Record<string, unknown> {
  if (!isRecord(kubectl)) return item;
  const out: Record<string, unknown> = { ...item };
  for (const field of MANIFEST_FIELDS) {
    if (item[field] !== undefined) out[field] = kubectl[field];
  }
  const expect = item.expect;
  if (isRecord(expect) && expect.patched !== undefined && isRecord(kubectl.expect)) {
    out.expect = { ...expect, patched: kubectl.expect.patched };
  }
  return out;
}

/** The `index`th case of the second reading (undefined when it has no such case). */
export function kubectlCase(view: KubectlView, index: number): unknown {
  const cases = isRecord(view.top) ? view.top.cases : undefined;
  return Array.isArray(cases) ? (cases as unknown[])[index] : undefined;
}
