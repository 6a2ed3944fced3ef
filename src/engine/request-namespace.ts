import { isJsonObject, type JsonObject } from './json.js';
import { groupOf, isClusterScopedKind, isKnownGroup } from './cluster/cluster-scoped-kinds.js';

/**
 * The one rule for the namespace an offline evaluation (CLI `dryrun` and `test`, `PUT /v1/dryrun`,
 * the playground) puts a manifest in — kubectl's, so that the answer is the one the webhook gives
 * when the manifest is applied:
 *
 * - a cluster-scoped kind never has a namespace (a given one, or one in the manifest, is ignored,
 *   as the API server clears it);
 * - a namespaced kind is in the namespace given (`--namespace`, a test file's `namespace:`, the dry
 *   run's `namespace` member), else its `metadata.namespace`, else the current namespace,
 *   `default` — where `kubectl apply -f` would create it. A given namespace that differs from the
 *   manifest's replaces it (kubectl would refuse the pair; a test file reusing one manifest in
 *   several namespaces means the given one), so the object and the request always agree, as the
 *   API server makes them;
 * - a given empty namespace (`--namespace ''`, `namespace: ""`) asks for a cluster-scoped request:
 *   the way to evaluate a custom resource offline whose CRD is cluster-scoped;
 * - which kinds are cluster-scoped: the built-in table (cluster-scoped-kinds.ts), else the
 *   CustomResourceDefinitions of the cluster state given (`scopeOf`), else the kind is taken as
 *   namespaced — as most custom resources are — and the explanation says it was assumed.
 *
 * The webhook needs none of this: the API server tells it the request's namespace and has filled
 * the object's (admissionNamespace).
 */

/** How the namespace was decided. */
export type NamespaceBasis =
  'cluster-scoped' | 'given-cluster-scoped' | 'given' | 'manifest' | 'default';

export interface RequestNamespace {
  /** The admission request's namespace; undefined for a cluster-scoped request. */
  readonly namespace: string | undefined;
  readonly basis: NamespaceBasis;
  /** One sentence saying what was decided and why. */
  readonly reason: string;
  /**
   * True when the namespace was not simply the manifest's or a known scope's: filled in with the
   * current namespace, replaced by the one given, or the kind's scope assumed. Explanations then
   * state `reason`.
   */
  readonly assumed: boolean;
}

export interface NamespaceInputs {
  /** The namespace asked for; '' asks for a cluster-scoped request; undefined: none given. */
  readonly given?: string | undefined;
  /** The current namespace a namespaced kind without one lands in: `default`. */
  readonly current?: string | undefined;
  /** A CRD's scope from the cluster state, when one is listed for the kind. */
  readonly scopeOf?:
    ((group: string, kind: string) => 'Cluster' | 'Namespaced' | undefined) | undefined;
}

export const DEFAULT_REQUEST_NAMESPACE = 'default';

/** The namespace `object` is evaluated in, by the rule above. */
export function resolveRequestNamespace(
  object: JsonObject,
  inputs: NamespaceInputs = {},
): RequestNamespace {
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const own = ownNamespace(object);
  const scope = scopeOfKind(kind, apiVersion, inputs.scopeOf);
  if (scope.clusterScoped) {
    return {
      namespace: undefined,
      basis: 'cluster-scoped',
      reason: `${scope.why}: no namespace`,
      assumed: scope.assumed,
    };
  }
  const { given } = inputs;
  if (given === '') {
    return {
      namespace: undefined,
      basis: 'given-cluster-scoped',
      reason: `${describeKind(kind)} evaluated as cluster-scoped: an empty namespace was given`,
      assumed: true,
    };
  }
  if (given !== undefined) {
    const moved =
      own !== undefined && own !== given
        ? ` (its metadata.namespace ${own} is replaced, as the API server requires them to agree)`
        : '';
    return {
      namespace: given,
      basis: 'given',
      reason: `${describeKind(kind)} evaluated in namespace ${given}, as given${moved}`,
      assumed: moved !== '',
    };
  }
  if (own !== undefined) {
    return {
      namespace: own,
      basis: 'manifest',
      reason: `${describeKind(kind)} evaluated in namespace ${own}, its metadata.namespace`,
      assumed: false,
    };
  }
  const current = inputs.current ?? DEFAULT_REQUEST_NAMESPACE;
  return {
    namespace: current,
    basis: 'default',
    reason: `no metadata.namespace: ${scope.why}, so it is evaluated in namespace ${current}, where kubectl would create it`,
    assumed: true,
  };
}

/**
 * The object as the API server hands it to the webhook: a namespaced object's metadata.namespace
 * filled in with the request's, a cluster-scoped object's removed. The same object when nothing
 * changes.
 */
export function withRequestNamespace(
  object: JsonObject,
  namespace: string | undefined,
): JsonObject {
  const { metadata } = object;
  if (!isJsonObject(metadata)) return object;
  const own = metadata.namespace;
  if (namespace === undefined) {
    if (own === undefined) return object;
    const rest: JsonObject = { ...metadata };
    delete rest.namespace;
    return { ...object, metadata: rest };
  }
  if (own === namespace) return object;
  return { ...object, metadata: { ...metadata, namespace } };
}

function scopeOfKind(
  kind: string,
  apiVersion: string,
  scopeOf: NamespaceInputs['scopeOf'],
): { readonly clusterScoped: boolean; readonly why: string; readonly assumed: boolean } {
  const what = describeKind(kind, apiVersion);
  if (isClusterScopedKind(kind, apiVersion)) {
    return { clusterScoped: true, why: `${what} is cluster-scoped`, assumed: false };
  }
  const crd = scopeOf?.(groupOf(apiVersion), kind);
  if (crd !== undefined) {
    return {
      clusterScoped: crd === 'Cluster',
      why: `${what} is ${crd === 'Cluster' ? 'cluster-scoped' : 'namespaced'} (its CustomResourceDefinition in the cluster state says so)`,
      assumed: false,
    };
  }
  if (isKnownGroup(apiVersion)) {
    return { clusterScoped: false, why: `${what} is namespaced`, assumed: false };
  }
  return {
    clusterScoped: false,
    assumed: true,
    why: `${what} is assumed namespaced (an unknown kind offline; give its CustomResourceDefinition in the cluster state, or an empty namespace, if it is cluster-scoped)`,
  };
}

function ownNamespace(object: JsonObject): string | undefined {
  const { metadata } = object;
  const namespace = isJsonObject(metadata) ? metadata.namespace : undefined;
  return typeof namespace === 'string' && namespace !== '' ? namespace : undefined;
}

function describeKind(kind: string, apiVersion?: string): string {
  if (kind === '') return 'the object (no kind)';
  return apiVersion === undefined || apiVersion === '' ? kind : `${kind} (${apiVersion})`;
}
