/**
 * Builders for the committed benchmark objects: realistic Pod, Deployment and Service manifests of
 * a given size, all in namespace `team-a`, and their AdmissionReview v1 CREATE bodies.
 */
import type { Prng } from './prng.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonRecord = { [key: string]: Json };

export const BENCH_NAMESPACE = 'team-a';

const LABELS = {
  app: 'web',
  'app.kubernetes.io/name': 'web',
  'app.kubernetes.io/part-of': 'shop',
  team: 'a',
  env: 'prod',
};

function container(rng: Prng, index: number, envCount: number): JsonRecord {
  return {
    name: index === 0 ? 'web' : `app-${String(index)}`,
    image:
      index === 0
        ? 'nginx:1.25.3'
        : `registry.example.com/team/app-${String(index)}:1.${String(index)}.3`,
    imagePullPolicy: 'IfNotPresent',
    args: [
      '--port=8080',
      `--worker-id=${String(index)}`,
      '--log-level=info',
      '--metrics-addr=:9090',
    ],
    env: Array.from({ length: envCount }, (_, j) => ({
      name: `ENV_VAR_${String(j)}`,
      value: `value-${String(index)}-${String(j)}-${rng.word(20)}`,
    })),
    ports: [
      { containerPort: 8080 + index, name: 'http', protocol: 'TCP' },
      { containerPort: 9090 + index, name: 'metrics', protocol: 'TCP' },
    ],
    resources: {
      requests: { cpu: '100m', memory: '128Mi' },
      limits: { cpu: '500m', memory: '512Mi' },
    },
    livenessProbe: {
      httpGet: { path: '/healthz', port: 8080 + index },
      initialDelaySeconds: 10,
      periodSeconds: 10,
    },
    readinessProbe: { httpGet: { path: '/readyz', port: 8080 + index }, periodSeconds: 5 },
    volumeMounts: [
      { name: 'config', mountPath: '/etc/app' },
      { name: 'data', mountPath: '/var/lib/app' },
    ],
  };
}

function podSpec(rng: Prng, containers: number, envCount: number): JsonRecord {
  return {
    serviceAccountName: 'web',
    terminationGracePeriodSeconds: 30,
    containers: Array.from({ length: containers }, (_, i) => container(rng, i, envCount)),
    volumes: [
      { name: 'config', configMap: { name: 'web-config' } },
      { name: 'data', emptyDir: {} },
    ],
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    tolerations: [
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
    ],
  };
}

/** A Deployment `web` with `containers` containers of `envCount` environment variables each. */
export function deployment(rng: Prng, containers: number, envCount: number): JsonRecord {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: BENCH_NAMESPACE,
      labels: { ...LABELS },
      annotations: {
        'team.example.com/owner': 'alice@example.com',
        description: 'the shop front end, serving the catalogue and the checkout pages',
      },
    },
    spec: {
      replicas: 3,
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: 'web' } },
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
      },
      template: {
        metadata: {
          labels: { app: 'web', team: 'a', env: 'prod' },
          annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
        },
        spec: podSpec(rng, containers, envCount),
      },
    },
  };
}

/** A Pod created by the `web` Deployment's ReplicaSet. */
export function pod(rng: Prng): JsonRecord {
  const hash = rng.word(9);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `web-${hash}-`,
      namespace: BENCH_NAMESPACE,
      labels: { app: 'web', team: 'a', env: 'prod', 'pod-template-hash': hash },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `web-${hash}`,
          uid: `${rng.word(8)}-${rng.word(4)}-${rng.word(4)}-${rng.word(4)}-${rng.word(12)}`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: podSpec(rng, 1, 6),
  };
}

/** A Service `web` with several ports and the usual annotations. */
export function service(rng: Prng): JsonRecord {
  const names = [
    'http',
    'https',
    'metrics',
    'grpc',
    'admin',
    'health',
    'debug',
    'profiling',
    'ws',
    'tls',
  ];
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'web',
      namespace: BENCH_NAMESPACE,
      labels: { ...LABELS },
      annotations: {
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
        'external-dns.alpha.kubernetes.io/hostname': 'web.team-a.example.com',
        'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb',
        'service.beta.kubernetes.io/aws-load-balancer-internal': 'true',
        'team.example.com/owner': 'alice@example.com',
        'team.example.com/slack': '#team-a-shop-frontend',
        'team.example.com/pager': 'https://pager.example.com/services/team-a-web',
        'team.example.com/runbook': `https://runbooks.example.com/team-a/web/${rng.word(24)}`,
        description: 'the shop front end, serving the catalogue and the checkout pages',
      },
    },
    spec: {
      type: 'ClusterIP',
      selector: { app: 'web' },
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
      ports: names.map((name, i) => ({
        name,
        port: 80 + i * 1000,
        targetPort: 8080 + i,
        protocol: 'TCP',
        appProtocol: i === 3 ? 'grpc' : 'http',
      })),
    },
  };
}

/** The AdmissionReview v1 CREATE body the API server sends for `object`. */
export function admissionReview(object: JsonRecord, uid: string): JsonRecord {
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : 'v1';
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const metadata = object.metadata as JsonRecord;
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: group ?? '', version: version ?? 'v1', kind },
      resource: { group: group ?? '', version: version ?? 'v1', resource: plural },
      requestKind: { group: group ?? '', version: version ?? 'v1', kind },
      requestResource: { group: group ?? '', version: version ?? 'v1', resource: plural },
      name: typeof metadata.name === 'string' ? metadata.name : '',
      namespace: BENCH_NAMESPACE,
      operation: 'CREATE',
      userInfo: {
        username: 'system:serviceaccount:kube-system:replicaset-controller',
        uid: 'b1c2d3e4-0000-4000-8000-000000000001',
        groups: [
          'system:serviceaccounts',
          'system:serviceaccounts:kube-system',
          'system:authenticated',
        ],
      },
      object,
      oldObject: null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    },
  };
}
