/**
 * Which kinds are cluster-scoped, without discovery. The engine needs this to know where a
 * manifest without `metadata.namespace` lands (request-namespace.ts), that a literal
 * `lookup "v1" "Node" "" "n1"` reads outside every namespace (refused for namespaced rules at
 * admission), and where an ownerReference to such a kind points.
 *
 * The table is every cluster-scoped resource kind a v1.33 kube-apiserver serves (`kubectl
 * api-resources --namespaced=false`, alpha groups included) and the project's own CRDs
 * (ExternalDataProvider is cluster-scoped; ModRule is namespaced), plus the wgpolicyk8s.io
 * ClusterPolicyReport the optional policy reports use. An e2e test compares it with the test
 * control plane's discovery. Any other kind is namespaced unless a CustomResourceDefinition in the
 * cluster state given says otherwise (KindScopes).
 */
const CLUSTER_SCOPED_BY_GROUP: Readonly<Record<string, readonly string[]>> = {
  '': ['ComponentStatus', 'Namespace', 'Node', 'PersistentVolume'],
  'admissionregistration.k8s.io': [
    'MutatingAdmissionPolicy',
    'MutatingAdmissionPolicyBinding',
    'MutatingWebhookConfiguration',
    'ValidatingAdmissionPolicy',
    'ValidatingAdmissionPolicyBinding',
    'ValidatingWebhookConfiguration',
  ],
  'apiextensions.k8s.io': ['CustomResourceDefinition'],
  'apiregistration.k8s.io': ['APIService'],
  'authentication.k8s.io': ['SelfSubjectReview', 'TokenReview'],
  'authorization.k8s.io': [
    'SelfSubjectAccessReview',
    'SelfSubjectRulesReview',
    'SubjectAccessReview',
  ],
  'certificates.k8s.io': ['CertificateSigningRequest', 'ClusterTrustBundle'],
  'flowcontrol.apiserver.k8s.io': ['FlowSchema', 'PriorityLevelConfiguration'],
  'internal.apiserver.k8s.io': ['StorageVersion'],
  'networking.k8s.io': ['IngressClass', 'IPAddress', 'ServiceCIDR'],
  'node.k8s.io': ['RuntimeClass'],
  'rbac.authorization.k8s.io': ['ClusterRole', 'ClusterRoleBinding'],
  'resource.k8s.io': ['DeviceClass', 'DeviceTaintRule', 'ResourceSlice'],
  'scheduling.k8s.io': ['PriorityClass'],
  'storage.k8s.io': [
    'CSIDriver',
    'CSINode',
    'StorageClass',
    'VolumeAttachment',
    'VolumeAttributesClass',
  ],
  'storagemigration.k8s.io': ['StorageVersionMigration'],
  'api.kubemod.io': ['ExternalDataProvider'],
  'wgpolicyk8s.io': ['ClusterPolicyReport'],
};

const GROUPS_OF_KIND: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const out = new Map<string, Set<string>>();
  for (const [group, kinds] of Object.entries(CLUSTER_SCOPED_BY_GROUP)) {
    for (const kind of kinds) {
      const groups = out.get(kind) ?? new Set<string>();
      groups.add(group);
      out.set(kind, groups);
    }
  }
  return out;
})();

/** Every kind of the table with its API group (for the discovery comparison). */
export function builtInClusterScopedKinds(): readonly { group: string; kind: string }[] {
  return Object.entries(CLUSTER_SCOPED_BY_GROUP).flatMap(([group, kinds]) =>
    kinds.map((kind) => ({ group, kind })),
  );
}

/** The API group of an apiVersion: "" for "v1", "apps" for "apps/v1". */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/**
 * Whether `kind` is a cluster-scoped kind of the table. With `apiVersion`, the group must be the
 * table's too (a CRD may reuse a built-in kind's name in its own group); without, the kind alone.
 */
export function isClusterScopedKind(kind: string, apiVersion?: string): boolean {
  const groups = GROUPS_OF_KIND.get(kind);
  if (groups === undefined) return false;
  return apiVersion === undefined || groups.has(groupOf(apiVersion));
}

/** Groups whose kinds the table knows: Kubernetes' own (`*.k8s.io`, the core and legacy ones). */
const KUBERNETES_GROUPS = new Set(['', 'apps', 'batch', 'autoscaling', 'policy', 'api.kubemod.io']);

/**
 * Whether the table's answer for the kind is knowledge rather than an assumption: a kind of a
 * Kubernetes API group or of this project's. A custom resource's kind is not known offline.
 */
export function isKnownGroup(apiVersion: string): boolean {
  const group = groupOf(apiVersion);
  return (
    KUBERNETES_GROUPS.has(group) || group.endsWith('.k8s.io') || group in CLUSTER_SCOPED_BY_GROUP
  );
}
