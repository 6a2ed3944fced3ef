import type { AskingRule, ObjectKey } from './cluster-view.js';

/**
 * The namespace pinning every ClusterView applies (issue 35, "never beyond the author"): a rule
 * in the cluster namespace (kubemod-system) may read any namespace and cluster-scoped kinds; any
 * other rule only objects of its own namespace. Returns why the read is refused, or undefined
 * when the namespace allows it (the author's own rights are checked separately, by the view).
 */
export function pinRefusal(
  asker: AskingRule,
  key: Pick<ObjectKey, 'namespace' | 'kind'>,
  clusterNamespace: string,
): string | undefined {
  if (asker.namespace === clusterNamespace) return undefined;
  if (key.namespace === undefined || key.namespace === '') {
    return `a rule in namespace ${asker.namespace} cannot read cluster-scoped ${key.kind} objects (only rules in ${clusterNamespace} can)`;
  }
  if (key.namespace !== asker.namespace) {
    return `a rule in namespace ${asker.namespace} reads only its own namespace (only rules in ${clusterNamespace} read others)`;
  }
  return undefined;
}

/** `apiVersion/kind namespace/name` (or `apiVersion/kind name` for cluster-scoped kinds). */
export function describeKey(key: ObjectKey): string {
  const where =
    key.namespace === undefined || key.namespace === '' ? key.name : `${key.namespace}/${key.name}`;
  return `${key.apiVersion}/${key.kind} ${where}`;
}
