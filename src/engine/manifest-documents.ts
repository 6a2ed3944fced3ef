import { describeError, isKubemodError } from '../errors/catalog.js';
import type { JsonValue } from './json.js';
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
    return { documents: [], errors: [manifestError(source, err)] };
  }
}

/**
 * `<source>: not valid YAML: <first line of the parser's reason>`, or, for text that is valid
 * but too large or deep (YAML_LIMIT, DEPTH_LIMIT) or not representable, `<source>: <message>`.
 */
function manifestError(source: string, err: unknown): string {
  if (isKubemodError(err) && err.kind === 'PATCH_VALUE' && err.cause !== undefined) {
    const reason = describeError(err.cause).split('\n')[0] ?? '';
    return `${source}: not valid YAML: ${reason}`;
  }
  if (isKubemodError(err)) return `${source}: ${err.rawMessage()}`;
  return `${source}: not valid YAML: ${describeError(err).split('\n')[0] ?? ''}`;
}
