import { KubemodError } from '../../errors/catalog.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json.js';
import {
  EXTERNAL_ANSWERS_KIND,
  StaticCluster,
  keyOf,
  type ProviderAnswer,
} from './static-cluster.js';

/** Objects a cluster state may list (offline inputs are files and request bodies, bounded too). */
export const MAX_CLUSTER_OBJECTS = 10_000;

/**
 * Reads the cluster state of offline evaluation from documents: Kubernetes manifests (each with
 * apiVersion, kind and metadata.name) and `ExternalDataAnswers` documents:
 *
 *     kind: ExternalDataAnswers
 *     provider: image-registry
 *     answers:
 *       - key: nginx:1.25
 *         value: {allowed: true}
 *       - key: broken:1
 *         error: timeout            # the provider failed for this key
 *
 * `source` names where they came from in errors (a file, `cluster[3]`), which say which document
 * and field is wrong.
 */
export function clusterFromDocuments(
  documents: readonly JsonValue[],
  source: string,
  clusterNamespace?: string,
): StaticCluster {
  if (documents.length > MAX_CLUSTER_OBJECTS) {
    throw invalid(`${source}: more than ${String(MAX_CLUSTER_OBJECTS)} cluster objects`);
  }
  const objects: JsonObject[] = [];
  const answers = new Map<string, Map<string, ProviderAnswer>>();
  for (const [i, doc] of documents.entries()) {
    const where = `${source}[${String(i)}]`;
    if (!isJsonObject(doc)) throw invalid(`${where}: a cluster object must be a map`);
    if (doc.kind === EXTERNAL_ANSWERS_KIND) {
      readAnswers(doc, where, answers);
      continue;
    }
    if (keyOf(doc) === undefined) {
      throw invalid(`${where}: a cluster object needs apiVersion, kind and metadata.name`);
    }
    objects.push(doc);
  }
  return new StaticCluster(objects, answers, clusterNamespace);
}

function readAnswers(
  doc: JsonObject,
  where: string,
  out: Map<string, Map<string, ProviderAnswer>>,
): void {
  const { provider, answers } = doc;
  if (typeof provider !== 'string' || provider === '') {
    throw invalid(`${where}.provider: ${EXTERNAL_ANSWERS_KIND} needs a provider name`);
  }
  if (!Array.isArray(answers)) {
    throw invalid(`${where}.answers: must be a list of {key, value} or {key, error}`);
  }
  const byKey = out.get(provider) ?? new Map<string, ProviderAnswer>();
  out.set(provider, byKey);
  for (const [j, item] of answers.entries()) {
    const at = `${where}.answers[${String(j)}]`;
    if (!isJsonObject(item) || typeof item.key !== 'string') {
      throw invalid(`${at}.key: each answer needs a string key`);
    }
    if (typeof item.error === 'string') byKey.set(item.key, { error: item.error });
    else if (item.value !== undefined) byKey.set(item.key, { value: item.value });
    else throw invalid(`${at}: an answer needs a value or an error`);
  }
}

function invalid(message: string): KubemodError {
  return new KubemodError('INPUT_INVALID', message);
}
