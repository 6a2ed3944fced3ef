/**
 * Built-in kinds that are cluster-scoped. The engine has no discovery; it needs this much to know
 * that a literal `lookup "v1" "Node" "" "n1"` reads outside every namespace (refused for
 * namespaced rules at admission) and where an ownerReference to such a kind points.
 */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'StorageClass',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'APIService',
  'PriorityClass',
  'RuntimeClass',
  'IngressClass',
  'CSIDriver',
  'CSINode',
  'VolumeAttachment',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'CertificateSigningRequest',
  'ExternalDataProvider',
]);

/** Whether `kind` is a built-in cluster-scoped kind. */
export function isClusterScopedKind(kind: string): boolean {
  return CLUSTER_SCOPED.has(kind);
}
