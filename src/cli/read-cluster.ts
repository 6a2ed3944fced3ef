import { clusterFromDocuments } from '../engine/cluster/cluster-documents.js';
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
