import type { FieldReader } from '../api/field-reader.js';
import { clusterFromDocuments } from '../engine/cluster/cluster-documents.js';
import { describeError } from '../errors/catalog.js';
import type { StaticCluster } from '../engine/cluster/static-cluster.js';
import type { JsonValue } from '../engine/json.js';
import { parseManifestDocuments } from '../engine/manifest-documents.js';
import { isListManifest } from '../webhook/dryrun/dryrun-manifests.js';
import { CliError } from './cli-io.js';
import { expandRuleFiles, readText } from './read-inputs.js';

/** Cluster documents and, for each, where it came from (`file.yaml[2]`) for error messages. */
export interface ClusterDocuments {
  readonly documents: JsonValue[];
  readonly names: string[];
}

/**
 * `--cluster <file|dir>` (repeatable): the cluster state lookups read offline (docs/lookups.md):
 * Kubernetes manifests (several documents per file, Lists as `kubectl get -o yaml` writes them)
 * and ExternalDataAnswers documents. Errors name the file and the document.
 */
export function readClusterFiles(paths: readonly string[]): StaticCluster {
  const { documents, names } = readClusterDocuments(paths);
  try {
    return clusterFromDocuments(documents, '--cluster', undefined, names);
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
}

/** The documents of cluster files and directories, read as kubectl reads manifests. */
export function readClusterDocuments(
  paths: readonly string[],
  into: ClusterDocuments = { documents: [], names: [] },
): ClusterDocuments {
  const errors: string[] = [];
  for (const file of expandRuleFiles(paths)) {
    const read = parseManifestDocuments(readText(file), file);
    errors.push(...read.errors);
    for (const [i, document] of read.documents.entries()) {
      const list = isListManifest(document);
      const items = list ? document.items : [document];
      for (const [j, item] of items.entries()) {
        into.documents.push(item);
        into.names.push(
          list ? `${file}[${String(i)}].items[${String(j)}]` : `${file}[${String(i)}]`,
        );
      }
    }
  }
  if (errors.length > 0) throw new CliError(errors.join(' | '));
  return into;
}

/**
 * A test file's `cluster:` (docs/lookups.md): a list of manifests given inline or as paths of
 * files or directories of manifests (a single path too, resolved by `resolve` from the test
 * file's directory), ExternalDataAnswers documents included. Problems go on `r`.
 */
export function readClusterField(
  value: unknown,
  r: FieldReader,
  resolve: (path: string) => string,
): StaticCluster | undefined {
  if (value === undefined || value === null) return undefined;
  const items: unknown[] = Array.isArray(value) ? value : [value];
  const read: ClusterDocuments = { documents: [], names: [] };
  try {
    for (const [i, item] of items.entries()) {
      if (typeof item === 'string' && item !== '') {
        readClusterDocuments([resolve(item)], read);
      } else {
        read.documents.push(item as JsonValue);
        read.names.push(`cluster[${String(i)}]`);
      }
    }
    return clusterFromDocuments(read.documents, 'cluster', undefined, read.names);
  } catch (err) {
    r.fail('cluster', describeError(err));
    return undefined;
  }
}
