/**
 * The objects of the lookups benchmarks: 2,000 Deployments, 10,000 ReplicaSets (five per
 * Deployment, owned by it, as rollouts leave them) and 5,000 ConfigMaps, spread over NAMESPACES
 * namespaces `team-<n>`. Manifests as a client creates them (the in-process bench adds what the
 * API server would: resourceVersion, uid and a managedFields entry).
 */
import type { JsonObject } from '../../src/engine/json.js';

export const NAMESPACES = 100;
export const DEPLOYMENTS = 2_000;
export const REPLICASETS_PER_DEPLOYMENT = 5;
export const CONFIGMAPS = 5_000;

const MANAGED = [
  {
    manager: 'kubectl-client-side-apply',
    operation: 'Update',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': {} },
  },
];

function template(app: string, hash?: string): JsonObject {
  return {
    metadata: {
      labels: { app, tier: 'web', ...(hash === undefined ? {} : { 'pod-template-hash': hash }) },
    },
    spec: {
      containers: [
        {
          name: 'app',
          image: `registry.example.com/${app}:1.2.3`,
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'APP', value: app },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' } },
        },
      ],
    },
  };
}

export function deployment(i: number): JsonObject {
  const app = `web-${String(i)}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: app,
      namespace: `team-${String(i % NAMESPACES)}`,
      labels: { app, team: `team-${String(i % NAMESPACES)}` },
    },
    spec: { replicas: 0, selector: { matchLabels: { app } }, template: template(app) },
  };
}

export function replicaSet(i: number, revision: number): JsonObject {
  const owner = deployment(i);
  const meta = owner.metadata as { name: string; namespace: string };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${meta.name}-rs-${String(revision)}`,
      namespace: meta.namespace,
      labels: { app: meta.name, 'pod-template-hash': `h${String(revision)}` },
      annotations: { 'deployment.kubernetes.io/revision': String(revision + 1) },
      // The uid is made up: no garbage collector runs where these are created.
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: meta.name, uid: 'u', controller: true },
      ],
    },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: meta.name, 'pod-template-hash': `h${String(revision)}` } },
      template: template(meta.name, `h${String(revision)}`),
    },
  };
}

export function configMap(i: number): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `settings-${String(Math.floor(i / NAMESPACES))}`,
      namespace: `team-${String(i % NAMESPACES)}`,
      labels: { app: 'settings' },
    },
    data: {
      value: `v-${String(i)}`,
      allowed: 'nginx,registry.example.com/web',
      notes: 'x'.repeat(200),
    },
  };
}

/** As the API server hands them out: with uid, resourceVersion and managedFields. */
function stored(obj: JsonObject, n: number): JsonObject {
  return {
    ...obj,
    metadata: {
      ...(obj.metadata as JsonObject),
      uid: `uid-${String(n)}`,
      resourceVersion: String(1000 + n),
      managedFields: MANAGED,
    },
  };
}

/** Every object by kind, as lists return them. Pod web-0-abcde's owner is web-0-rs-0 in team-0. */
export function lookupObjects(): Record<string, JsonObject[]> {
  let n = 0;
  const deployments = Array.from({ length: DEPLOYMENTS }, (_, i) => stored(deployment(i), n++));
  const replicaSets: JsonObject[] = [];
  for (let i = 0; i < DEPLOYMENTS; i++)
    for (let r = 0; r < REPLICASETS_PER_DEPLOYMENT; r++)
      replicaSets.push(stored(replicaSet(i, r), n++));
  const configMaps = Array.from({ length: CONFIGMAPS }, (_, i) => stored(configMap(i), n++));
  return { Deployment: deployments, ReplicaSet: replicaSets, ConfigMap: configMaps };
}
