import { isJsonObject, type JsonObject, type JsonValue } from '../json.js';
import { DEFAULT_CLUSTER_NAMESPACE } from '../rule.js';
import { isClusterScopedKind } from './cluster-scoped-kinds.js';
import type { AskingRule, ClusterView, LookupAnswer, ObjectKey } from './cluster-view.js';
import { pinRefusal } from './namespace-pin.js';

/** The kind of the document that lists a provider's answers offline (docs/lookups.md). */
export const EXTERNAL_ANSWERS_KIND = 'ExternalDataAnswers';

/** One provider's answer for one key: a value, or the error the provider gave. */
export type ProviderAnswer = { readonly value: JsonValue } | { readonly error: string };

/**
 * The cluster as a list of manifests plus the answers of external-data providers: what offline
 * evaluation reads (`dryrun --cluster`, a test file's `cluster:`, the dry run's `cluster` member,
 * the playground). Same pinning as the operator (pinRefusal); no access reviews (the author is
 * whoever runs it). An object not listed is absent; a provider not listed is unavailable; a key a
 * listed provider has no answer for is absent. Objects are frozen: a rule can never change them.
 */
export class StaticCluster implements ClusterView {
  private readonly objects = new Map<string, JsonObject>();
  private readonly providers = new Map<string, Map<string, ProviderAnswer>>();
  /** `group/kind` → scope, from the CustomResourceDefinitions listed. */
  private readonly crdScopes = new Map<string, 'Cluster' | 'Namespaced'>();

  constructor(
    objects: readonly JsonObject[],
    answers: ReadonlyMap<string, ReadonlyMap<string, ProviderAnswer>> = new Map(),
    private readonly clusterNamespace = DEFAULT_CLUSTER_NAMESPACE,
  ) {
    for (const object of objects) {
      const key = keyOf(object);
      if (key !== undefined) this.objects.set(indexKey(key), deepFreeze(object));
      const crd = crdScope(object);
      if (crd !== undefined) this.crdScopes.set(`${crd.group}/${crd.kind}`, crd.scope);
    }
    for (const [provider, byKey] of answers) this.providers.set(provider, new Map(byKey));
  }

  /** How many objects the view holds. */
  get size(): number {
    return this.objects.size;
  }

  /**
   * The scope a CustomResourceDefinition of the cluster state gives `kind` of `group`; undefined
   * when none is listed (the offline stand-in for discovery, see request-namespace.ts).
   */
  scopeOf(group: string, kind: string): 'Cluster' | 'Namespaced' | undefined {
    return this.crdScopes.get(`${group}/${kind}`);
  }

  get(asker: AskingRule, key: ObjectKey): LookupAnswer {
    const refusal = pinRefusal(asker, key, this.clusterNamespace);
    if (refusal !== undefined) return { kind: 'refused', reason: refusal };
    const object = this.objects.get(indexKey(key));
    return object === undefined ? { kind: 'absent' } : { kind: 'found', value: object };
  }

  external(_asker: AskingRule, provider: string, key: string): LookupAnswer {
    const byKey = this.providers.get(provider);
    if (byKey === undefined) {
      return {
        kind: 'unavailable',
        reason: `provider ${provider} is not declared (offline: no ${EXTERNAL_ANSWERS_KIND} document names it)`,
      };
    }
    const answer = byKey.get(key);
    if (answer === undefined) return { kind: 'absent' };
    if ('error' in answer)
      return { kind: 'unavailable', reason: `provider ${provider}: ${answer.error}` };
    return { kind: 'found', value: answer.value };
  }
}

/**
 * A manifest's key: a namespaced kind without metadata.namespace is in `default`, as kubectl
 * would create it; a cluster-scoped kind has none. Undefined when it has no kind or name.
 */
export function keyOf(object: JsonObject): ObjectKey | undefined {
  const { apiVersion, kind, metadata } = object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !isJsonObject(metadata))
    return undefined;
  const { name, namespace } = metadata;
  if (typeof name !== 'string' || name === '') return undefined;
  if (isClusterScopedKind(kind, apiVersion)) return { apiVersion, kind, namespace: '', name };
  const ns = typeof namespace === 'string' && namespace !== '' ? namespace : 'default';
  return { apiVersion, kind, namespace: ns, name };
}

function crdScope(
  object: JsonObject,
): { group: string; kind: string; scope: 'Cluster' | 'Namespaced' } | undefined {
  if (object.kind !== 'CustomResourceDefinition' || !isJsonObject(object.spec)) return undefined;
  const { group, names, scope } = object.spec;
  if (typeof group !== 'string' || !isJsonObject(names) || typeof names.kind !== 'string')
    return undefined;
  if (scope !== 'Cluster' && scope !== 'Namespaced') return undefined;
  return { group, kind: names.kind, scope };
}

function indexKey(key: ObjectKey): string {
  return JSON.stringify([key.apiVersion, key.kind, key.namespace ?? '', key.name]);
}

function deepFreeze<T extends JsonValue>(value: T): T {
  const stack: JsonValue[] = [value];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item !== 'object' || item === null || Object.isFrozen(item)) continue;
    Object.freeze(item);
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push(child);
  }
  return value;
}
