import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, KubemodError } from '../errors/catalog.js';
import { isJsonObject, type JsonObject } from '../engine/json.js';
import { parseManifestDocuments } from '../engine/manifest-documents.js';
import type { SyntheticRefLookups } from '../engine/evaluate.js';

/** Lookups that know nothing (standalone mode without --refs). */
export const NO_REFS: SyntheticRefLookups = Object.freeze({
  namespace: () => undefined,
  node: () => undefined,
});

/**
 * Namespace and Node manifests read once from a YAML/JSON file or a directory of them, served as
 * syntheticRefs in standalone mode. Other kinds are ignored.
 */
export async function loadStaticRefs(path: string): Promise<SyntheticRefLookups> {
  const namespaces = new Map<string, JsonObject>();
  const nodes = new Map<string, JsonObject>();
  for (const file of await refFiles(path)) {
    const parsed = parseManifestDocuments(await readFile(file, 'utf8'), file);
    if (parsed.errors.length > 0) throw new KubemodError('INPUT_INVALID', parsed.errors.join('; '));
    for (const doc of parsed.documents) {
      if (
        !isJsonObject(doc) ||
        !isJsonObject(doc.metadata) ||
        typeof doc.metadata.name !== 'string'
      )
        continue;
      if (doc.kind === 'Namespace') namespaces.set(doc.metadata.name, doc);
      if (doc.kind === 'Node') nodes.set(doc.metadata.name, doc);
    }
  }
  return { namespace: (name) => namespaces.get(name), node: (name) => nodes.get(name) };
}

async function refFiles(path: string): Promise<string[]> {
  try {
    if (!(await stat(path)).isDirectory()) return [path];
    const entries = await readdir(path, { withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && /\.(ya?ml|json)$/i.test(e.name))
      .map((e) => join(path, e.name))
      .sort();
  } catch (err) {
    throw new KubemodError(
      'INPUT_UNREADABLE',
      `cannot read --refs ${path}: ${describeError(err)}`,
      undefined,
      { cause: err },
    );
  }
}
