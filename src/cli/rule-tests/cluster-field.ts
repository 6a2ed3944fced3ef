import type { FieldReader } from '../../api/field-reader.js';
import { clusterFromDocuments } from '../../engine/cluster/cluster-documents.js';
import type { StaticCluster } from '../../engine/cluster/static-cluster.js';
import type { JsonValue } from '../../engine/json.js';
import { describeError } from '../../errors/catalog.js';
import { readClusterDocuments, type ClusterDocuments } from '../read-cluster.js';

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
