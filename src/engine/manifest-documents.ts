import { isKubemodError } from '../errors/catalog.js';
import type { JsonValue } from './json.js';
import { yamlError } from './load-rules.js';
import { parseYamlDocuments } from './patch/index.js';

/**
 * Kubernetes manifests read from YAML text as kubectl reads them before it sends them to the API
 * server (sigs.k8s.io/yaml over go-yaml, YAML 1.1): `yes`/`on` are booleans, `012` is octal 10,
 * a key `n` is the string "false", timestamps stay strings, members come in sorted order. Every
 * way of asking (`dryrun`, `test`, `serve --refs`, `PUT /v1/dryrun`, the playground) reads a
 * manifest text with this one reader, so that each means what it would mean to the cluster.
 * ModRules are read with {@link parseDocuments} instead: their fields are strings either way.
 */

/** The documents of `text` (empty documents dropped), or one error line naming `source`. */
export function parseManifestDocuments(
  text: string,
  source: string,
): { readonly documents: JsonValue[]; readonly errors: string[] } {
  try {
    return { documents: parseYamlDocuments(text).filter((d) => d !== null), errors: [] };
  } catch (err) {
    // The go-yaml reader wraps a syntax error as PATCH_VALUE (a rendered value is what it reads
    // most); the parser's own error is the one to show.
    const syntax = isKubemodError(err) && err.kind === 'PATCH_VALUE' && err.cause !== undefined;
    return { documents: [], errors: [yamlError(source, syntax ? err.cause : err)] };
  }
}
