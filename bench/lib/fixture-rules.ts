/**
 * The committed benchmark rule sets: `total` ModRules spread over namespaces (about 50 per
 * namespace, plus about 1 % cluster-wide in kubemod-system with targetNamespaceRegex), a realistic
 * mix of kind filters, label matches, regexes, filters with placeholders, Go templates, tiers and
 * Reject rules. Exactly 10 rules match the 10 KB Deployment `team-a/web` on CREATE (8 in team-a,
 * 2 cluster-wide); from 100 rules on, 2 more match the Pod and 1 the Service.
 */
import { BENCH_NAMESPACE, type JsonRecord } from './fixture-objects.js';
import type { Prng } from './prng.js';

export const CLUSTER_NAMESPACE = 'kubemod-system';
const CONTAINERS = '$.spec.template.spec.containers';

type Spec = JsonRecord;
export interface RuleDoc {
  readonly apiVersion: 'api.kubemod.io/v1beta1';
  readonly kind: 'ModRule';
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly spec: Spec;
}

function rule(namespace: string, name: string, spec: Spec): RuleDoc {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace },
    spec,
  };
}

const kindIs = (kind: string): JsonRecord => ({ select: '$.kind', matchValue: kind });
const annotate = (key: string, value: string): JsonRecord => ({
  op: 'add',
  path: `/metadata/annotations/${key.replace('/', '~1')}`,
  value,
});

/** The 10 rules that match the Deployment (the last 2 cluster-wide). */
function deploymentMatches(): RuleDoc[] {
  const ns = BENCH_NAMESPACE;
  return [
    rule(ns, 'm0-owner', {
      type: 'Patch',
      match: [kindIs('Deployment'), { select: '$.metadata.labels.app', matchValue: 'web' }],
      patch: [
        annotate(
          'bench.example.com/owner',
          '{{ .Target.metadata.labels.team | default "platform" }}',
        ),
      ],
    }),
    rule(ns, 'm1-web-server', {
      type: 'Patch',
      match: [
        kindIs('Deployment'),
        { select: `${CONTAINERS}[*].image`, matchRegex: '^nginx:1\\.2\\d\\.' },
      ],
      patch: [{ op: 'add', path: '/metadata/labels/web-server', value: 'nginx' }],
    }),
    rule(ns, 'm2-env', {
      type: 'Patch',
      executionTier: 1,
      match: [kindIs('Deployment'), { select: `${CONTAINERS}[? @.name == "web"]` }],
      patch: [
        {
          op: 'add',
          select: `${CONTAINERS}[? @.name == "web"]`,
          path: '/spec/template/spec/containers/#0/env/-1',
          value: "name: POD_OWNER\nvalue: '{{ .Target.metadata.name }}-{{ .Namespace }}'",
        },
      ],
    }),
    rule(ns, 'm3-pull-policy', {
      type: 'Patch',
      executionTier: 1,
      match: [
        kindIs('Deployment'),
        { select: `${CONTAINERS}[*].imagePullPolicy`, matchValue: 'IfNotPresent' },
      ],
      patch: [
        {
          op: 'replace',
          select: `${CONTAINERS}[? @.imagePullPolicy == "IfNotPresent"]`,
          path: '/spec/template/spec/containers/#0/imagePullPolicy',
          value: 'Always',
        },
      ],
    }),
    rule(ns, 'm4-security-context', {
      type: 'Patch',
      executionTier: 2,
      match: [
        { select: '$.kind', matchValues: ['Deployment', 'StatefulSet'] },
        { select: '$.metadata.labels.env', matchValue: 'prod' },
        { select: '$.spec.template.spec.securityContext.runAsNonRoot == true', negate: true },
      ],
      patch: [
        {
          op: 'add',
          path: '/spec/template/spec/securityContext',
          value: 'runAsNonRoot: true\nfsGroup: 2000',
        },
      ],
    }),
    rule(ns, 'm5-service-name', {
      type: 'Patch',
      executionTier: 2,
      match: [
        kindIs('Deployment'),
        { select: '$.metadata.labels["app.kubernetes.io/part-of"]', matchRegex: '^shop$' },
      ],
      patch: [
        annotate('bench.example.com/fqdn', '{{ .Target.metadata.name }}.{{ .Namespace }}.svc'),
      ],
    }),
    rule(ns, 'm6-ephemeral-storage', {
      type: 'Patch',
      executionTier: 3,
      match: [kindIs('Deployment')],
      patch: [
        {
          op: 'add',
          select: `${CONTAINERS}[*]`,
          path: '/spec/template/spec/containers/#0/resources/limits/ephemeral-storage',
          value: '2Gi',
        },
      ],
    }),
    rule(ns, 'm7-env-checked', {
      type: 'Patch',
      executionTier: 5,
      match: [
        kindIs('Deployment'),
        {
          select: `${CONTAINERS}[? @.name == "web"].env[? @.name =~ "^ENV_VAR_"].value`,
          matchFor: 'All',
          matchRegex: '^value-',
        },
      ],
      patch: [annotate('bench.example.com/env-checked', '"true"')],
    }),
    rule(CLUSTER_NAMESPACE, 'm8-policy-checked', {
      type: 'Patch',
      targetNamespaceRegex: '^team-.*',
      match: [kindIs('Deployment')],
      patch: [{ op: 'add', path: '/metadata/labels/policy.example.com~1checked', value: '"true"' }],
    }),
    rule(CLUSTER_NAMESPACE, 'm9-audited-by', {
      type: 'Patch',
      executionTier: 10,
      targetNamespaceRegex: '^team-[a-z]$',
      match: [
        kindIs('Deployment'),
        { select: '$.metadata.annotations["sidecar.istio.io/inject"]', negate: true },
      ],
      patch: [annotate('policy.example.com/audited-by', 'kubemod-{{ .Namespace }}')],
    }),
  ];
}

/** 2 rules matching the Pod and 1 matching the Service (none of them match the Deployment). */
function otherMatches(): RuleDoc[] {
  const ns = BENCH_NAMESPACE;
  return [
    rule(ns, 'pod-scrape', {
      type: 'Patch',
      match: [kindIs('Pod'), { select: '$.metadata.labels.app', matchValue: 'web' }],
      patch: [annotate('bench.example.com/pod', '{{ .Target.metadata.generateName }}')],
    }),
    rule(ns, 'pod-env', {
      type: 'Patch',
      executionTier: 1,
      match: [kindIs('Pod'), { select: '$.spec.containers[? @.name == "web"]' }],
      patch: [
        {
          op: 'add',
          select: '$.spec.containers[? @.name == "web"]',
          path: '/spec/containers/#0/env/-1',
          value: "name: NAMESPACE\nvalue: '{{ .Namespace }}'",
        },
      ],
    }),
    rule(ns, 'service-owner', {
      type: 'Patch',
      match: [kindIs('Service'), { select: '$.metadata.labels.team', matchRegex: '^[a-z]$' }],
      patch: [
        {
          op: 'add',
          path: '/metadata/labels/owner',
          value: 'team-{{ .Target.metadata.labels.team }}',
        },
      ],
    }),
  ];
}

const WORKLOADS = ['Deployment', 'Deployment', 'StatefulSet', 'DaemonSet'];
const OTHERS = ['Pod', 'Service', 'ConfigMap', 'Secret', 'Job', 'CronJob', 'Ingress'];

/** One rule that does not match any of the benchmark objects. */
function nonMatching(rng: Prng, namespace: string, i: number): RuleDoc {
  const w = rng.word(6);
  const name = `r${String(i)}-${w}`;
  const tier: JsonRecord = rng.next() < 0.5 ? {} : { executionTier: rng.int(-2, 10) };
  const roll = rng.next();
  const template = annotate(`example.com/${w}`, '{{ .Target.metadata.name }}-{{ .Namespace }}');
  if (roll < 0.3)
    return rule(namespace, name, {
      type: 'Patch',
      ...tier,
      match: [
        kindIs(rng.pick(WORKLOADS)),
        { select: '$.metadata.labels.app', matchValue: `svc-${w}` },
      ],
      patch: [template],
    });
  if (roll < 0.45)
    return rule(namespace, name, {
      type: 'Patch',
      ...tier,
      match: [
        kindIs(rng.pick(OTHERS)),
        { select: '$.metadata.labels.app', matchRegex: `^(svc-${w}|api-${w})$` },
      ],
      patch: [template],
    });
  if (roll < 0.55)
    return rule(namespace, name, {
      type: 'Patch',
      ...tier,
      match: [
        kindIs('Deployment'),
        { select: `${CONTAINERS}[*].image`, matchRegex: `^registry\\.internal/${w}/.*$` },
      ],
      patch: [
        {
          op: 'replace',
          select: `${CONTAINERS}[? @.image =~ "^registry\\.internal/"]`,
          path: '/spec/template/spec/containers/#0/imagePullPolicy',
          value: 'Always',
        },
      ],
    });
  if (roll < 0.65)
    return rule(namespace, name, {
      type: 'Patch',
      ...tier,
      match: [kindIs('Deployment'), { select: `${CONTAINERS}[? @.name == "${w}"]` }],
      patch: [
        {
          op: 'add',
          select: `${CONTAINERS}[? @.name == "${w}"]`,
          path: '/spec/template/spec/containers/#0/env/-1',
          value: `name: ${w.toUpperCase()}_HOST\nvalue: '{{ .Target.metadata.name }}.{{ .Namespace }}'`,
        },
      ],
    });
  if (roll < 0.75)
    return rule(namespace, name, {
      type: 'Reject',
      match: [
        kindIs(rng.pick(['Deployment', 'Pod', 'StatefulSet'])),
        { select: `${CONTAINERS}[*].image`, matchRegex: `.*/${w}:latest$` },
      ],
      rejectMessage: '{{ .Target.metadata.name }} uses a :latest image',
    });
  if (roll < 0.8)
    return rule(namespace, name, {
      type: roll < 0.775 ? 'Reject' : 'Patch',
      ...(roll < 0.775 ? {} : { patch: [template] }),
      match: [{ select: '$.metadata.labels["cost-center"]', matchRegex: `^cc-${w}$` }],
    });
  if (roll < 0.9)
    return rule(namespace, name, {
      type: 'Patch',
      ...tier,
      match: [
        { select: '$.kind', matchValues: ['Deployment', 'StatefulSet'] },
        { select: '$.metadata.labels.env', matchValues: ['staging', `dev-${w}`] },
        { select: '$.spec.template.spec.securityContext.runAsNonRoot == true', negate: true },
      ],
      patch: [
        { op: 'add', path: '/spec/template/spec/securityContext', value: 'runAsNonRoot: true' },
      ],
    });
  return rule(namespace, name, {
    type: 'Patch',
    ...tier,
    admissionOperations: [rng.pick(['UPDATE', 'DELETE'])],
    match: [kindIs('Deployment'), { select: '$.metadata.labels.team', matchValue: w }],
    patch: [template],
  });
}

const CLUSTER_TARGETS = ['^team-.*', '^ns-0[0-4][0-9]$', '.*', '^prod-.*'];

/** `total` rules grouped by file name (one file per 20 namespaces, team-a and cluster apart). */
export function ruleSet(rng: Prng, total: number): Map<string, RuleDoc[]> {
  const files = new Map<string, RuleDoc[]>();
  const add = (file: string, doc: RuleDoc): void => {
    const list = files.get(file);
    if (list === undefined) files.set(file, [doc]);
    else list.push(doc);
  };
  const matches = [...deploymentMatches(), ...(total >= 100 ? otherMatches() : [])];
  for (const doc of matches)
    add(
      doc.metadata.namespace === CLUSTER_NAMESPACE ? 'cluster.yaml' : `${BENCH_NAMESPACE}.yaml`,
      doc,
    );
  const clusterCount = Math.floor(total / 100);
  for (let i = 0; i < clusterCount; i++) {
    const doc = nonMatching(rng, CLUSTER_NAMESPACE, i);
    add('cluster.yaml', {
      ...doc,
      spec: { ...doc.spec, targetNamespaceRegex: rng.pick(CLUSTER_TARGETS) },
    });
  }
  const rest = total - matches.length - clusterCount;
  const namespaces = Math.max(2, Math.round(total / 50));
  for (let i = 0; i < rest; i++) {
    const n = i % namespaces;
    const namespace = n === 0 ? BENCH_NAMESPACE : `ns-${String(n).padStart(3, '0')}`;
    const file =
      n === 0
        ? `${BENCH_NAMESPACE}.yaml`
        : `namespaces-${String(Math.floor(n / 20)).padStart(2, '0')}.yaml`;
    add(file, nonMatching(rng, namespace, clusterCount + i));
  }
  return files;
}
