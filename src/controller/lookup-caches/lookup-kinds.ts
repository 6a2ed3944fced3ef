import { KubemodError } from '../../errors/catalog.js';

/** The flag that chooses the cached kinds; named in every "not cached" answer. */
export const LOOKUP_KINDS_FLAG = '--lookup-kinds';
/** The chart value that sets the flag. */
export const LOOKUP_KINDS_VALUE = 'lookups.kinds';
/** The optional RBAC that lets the operator list and watch the default kinds. */
export const LOOKUPS_RBAC = 'config/optional/lookups-rbac.yaml';

/**
 * The default: workloads and ConfigMaps. ReplicaSets and Jobs are kept as metadata only (owner
 * chains need their ownerReferences and labels; they are the most numerous objects of a cluster,
 * ten old ReplicaSets per Deployment). Secrets are never cached unless an admin lists them.
 */
export const DEFAULT_LOOKUP_KINDS =
  'ConfigMap,Deployment,ReplicaSet:metadata,StatefulSet,DaemonSet,Job:metadata,CronJob';

/** One API resource lookups may read: where it is listed and how it is kept. */
export interface LookupKind {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural resource name, for the API path and access reviews. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** Cached as PartialObjectMetadata: lookups see apiVersion, kind and metadata only. */
  readonly metadataOnly: boolean;
  /** Only objects matching this label selector are cached ('' = all). */
  readonly labelSelector: string;
}

type KnownKind = Omit<LookupKind, 'metadataOnly' | 'labelSelector'>;

const known = (
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced = true,
): KnownKind => ({ group, version, resource, kind, namespaced });

/**
 * The kinds an admin may list, by kind name. A fixed table rather than discovery: it keeps
 * startup free of discovery requests and the flag checkable offline; more kinds are a line here.
 */
export const KNOWN_LOOKUP_KINDS: readonly KnownKind[] = [
  known('', 'v1', 'configmaps', 'ConfigMap'),
  known('', 'v1', 'secrets', 'Secret'),
  known('', 'v1', 'services', 'Service'),
  known('', 'v1', 'serviceaccounts', 'ServiceAccount'),
  known('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim'),
  known('', 'v1', 'pods', 'Pod'),
  known('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
  known('apps', 'v1', 'deployments', 'Deployment'),
  known('apps', 'v1', 'replicasets', 'ReplicaSet'),
  known('apps', 'v1', 'statefulsets', 'StatefulSet'),
  known('apps', 'v1', 'daemonsets', 'DaemonSet'),
  known('batch', 'v1', 'jobs', 'Job'),
  known('batch', 'v1', 'cronjobs', 'CronJob'),
  known('networking.k8s.io', 'v1', 'ingresses', 'Ingress'),
  known('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy'),
  known('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
  known('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler'),
  known('rbac.authorization.k8s.io', 'v1', 'roles', 'Role'),
  known('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding'),
  known('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false),
  known('scheduling.k8s.io', 'v1', 'priorityclasses', 'PriorityClass', false),
];

/** At most this many entries (each is one watch held open). */
export const MAX_LOOKUP_KINDS = 32;

const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

function invalid(entry: string, reason: string): KubemodError {
  return new KubemodError(
    'INPUT_INVALID',
    `${LOOKUP_KINDS_FLAG}: entry ${JSON.stringify(entry)}: ${reason}`,
  );
}

/** One requirement of `@key=value&key!=value&key&!key` as a Kubernetes label selector term. */
function requirement(entry: string, term: string): string {
  const match = /^(!?)([^=!]+)(?:(!?=)(.*))?$/.exec(term);
  const key = match?.[2] ?? '';
  const value = match?.[4];
  if (match === null || !LABEL_KEY.test(key) || key.length > 317)
    throw invalid(
      entry,
      `label selector term ${JSON.stringify(term)} is not key, !key, key=value or key!=value with a valid label key`,
    );
  if (match[1] === '!' && match[3] !== undefined)
    throw invalid(entry, `label selector term ${JSON.stringify(term)}: !key takes no value`);
  if (value !== undefined && !LABEL_VALUE.test(value))
    throw invalid(
      entry,
      `label selector term ${JSON.stringify(term)}: ${JSON.stringify(value)} is not a label value`,
    );
  return term;
}

function parseEntry(entry: string): LookupKind {
  const at = entry.indexOf('@');
  const head = at < 0 ? entry : entry.slice(0, at);
  const selector = at < 0 ? '' : entry.slice(at + 1);
  const [kindName = '', ...modifiers] = head.split(':');
  const found = KNOWN_LOOKUP_KINDS.find((k) => k.kind === kindName);
  if (found === undefined)
    throw invalid(
      entry,
      `unknown kind ${JSON.stringify(kindName)}; known kinds: ${KNOWN_LOOKUP_KINDS.map((k) => k.kind).join(', ')}`,
    );
  for (const modifier of modifiers)
    if (modifier !== 'metadata')
      throw invalid(entry, `unknown modifier :${modifier} (the only one is :metadata)`);
  if (at >= 0 && selector === '') throw invalid(entry, 'empty label selector after @');
  const labelSelector =
    selector === ''
      ? ''
      : selector
          .split('&')
          .map((term) => requirement(entry, term))
          .join(',');
  return { ...found, metadataOnly: modifiers.length > 0, labelSelector };
}

/**
 * Reads `--lookup-kinds`: comma-separated `Kind[:metadata][@selector]` entries, where the
 * selector is label requirements joined by `&` (`key=value`, `key!=value`, `key`, `!key`), e.g.
 * `ConfigMap@lookup.kubemod.io/enabled=true,Deployment,ReplicaSet:metadata`. An empty value
 * (`--lookup-kinds=`) or `none` caches nothing. Throws INPUT_INVALID naming the entry.
 */
export function parseLookupKinds(raw: string | undefined): LookupKind[] {
  const text = (raw ?? DEFAULT_LOOKUP_KINDS).trim();
  if (text === '' || text === 'none') return [];
  const entries = text.split(',').map((e) => e.trim());
  if (entries.length > MAX_LOOKUP_KINDS)
    throw new KubemodError(
      'INPUT_INVALID',
      `${LOOKUP_KINDS_FLAG}: at most ${String(MAX_LOOKUP_KINDS)} kinds, got ${String(entries.length)}`,
    );
  const kinds: LookupKind[] = [];
  for (const entry of entries) {
    if (entry === '') throw invalid(entry, 'empty entry (two commas in a row?)');
    const kind = parseEntry(entry);
    if (kinds.some((k) => k.kind === kind.kind))
      throw invalid(entry, `${kind.kind} is listed twice`);
    kinds.push(kind);
  }
  return kinds;
}

/** `apps/v1` style apiVersion of a kind. */
export function apiVersionOf(kind: Pick<LookupKind, 'group' | 'version'>): string {
  return kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
}

/** The collection path the informer lists and watches (all namespaces). */
export function collectionPath(kind: LookupKind): string {
  const base = kind.group === '' ? '/api/v1' : `/apis/${kind.group}/${kind.version}`;
  return `${base}/${kind.resource}`;
}
