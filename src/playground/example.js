// @ts-check
// What the playground shows when opened without a link: two of samples/modrules and a Deployment
// that the Patch rule changes and the Reject rule lets through (change the image to `nginx` to
// see it rejected).

/** @type {import('./share.js').PlaygroundState} */
export const EXAMPLE = {
  rules: `# Every Deployment gets an owner label (its team label, or "platform").
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: deployment-owner
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Deployment
  patch:
    - op: add
      path: /metadata/labels/owner
      value: '{{ .Target.metadata.labels.team | default "platform" }}'
---
# Refuse images tagged latest, or not tagged at all.
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: reject-latest-images
spec:
  type: Reject
  match:
    - select: '$.kind'
      matchValue: Deployment
    - select: '$.spec.template.spec.containers[*].image'
      matchRegex: '^[^:]+(:latest)?$'
  rejectMessage: 'Deployment {{ .Target.metadata.name }} uses an image without a pinned tag'
`,
  resource: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels:
    app: web
    team: storefront
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx:1.27
`,
  namespace: '',
  operation: 'CREATE',
  namespaceManifest: '',
  nodeManifest: '',
  old: '',
  cluster: '',
};
