/**
 * Issue 39: a manifest without metadata.namespace, as most manifests in repositories are. kubectl
 * creates a Pod without one in the current namespace (`default`), so the webhook sees it there;
 * every offline path must evaluate it there too, and a Reject rule in `default` must reject it
 * everywhere. A cluster-scoped kind never has a namespace: the same rule never sees a Node.
 */
import type { JsonObject } from '../../../src/engine/json.js';
import type { RuleFile } from './example-rules.js';

export const NAMESPACE_LESS_RULES: readonly RuleFile[] = [
  {
    name: 'default-no-latest.yaml',
    yaml: `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: no-latest
  namespace: default
spec:
  type: Reject
  match:
    - select: '$.kind'
      matchValue: Pod
    - select: '$.spec.containers[*].image'
      matchRegex: ':latest$'
  rejectMessage: 'no :latest images in {{ .Namespace }} ({{ .Target.metadata.namespace }})'
`,
  },
  {
    name: 'cluster-nodes.yaml',
    yaml: `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: label-nodes
  namespace: kubemod-system
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Node
  patch:
    - op: add
      path: /metadata/labels/seen
      value: '"{{ .Namespace }}"'
`,
  },
];

/** A Pod as a repository holds it: no metadata.namespace. */
export const NAMESPACE_LESS_POD: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx:latest' }] },
};

/** A Node (cluster-scoped) without a namespace: evaluated cluster-scoped everywhere. */
export const NAMESPACE_LESS_NODE: JsonObject = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n1', labels: {} },
};

/** What the webhook answers for them, as the API server sends them. */
export const NAMESPACE_LESS_EXPECTED = {
  pod: {
    patch: [],
    rejected: 'default/no-latest: "no :latest images in default (default)"',
    failed: [],
  },
  node: {
    patch: [{ op: 'add', path: '/metadata/labels/seen', value: '' }],
    rejected: '',
    failed: [],
  },
} as const;
