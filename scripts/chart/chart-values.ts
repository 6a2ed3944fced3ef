// The chart's values: one list that gives each value its path, description, default and JSON
// schema. values.yaml, values.schema.json and the README's values table are all written from it,
// and the defaults come from the config/ objects, so none of the three can drift from the others
// or from bundle.yaml.
import { LOG_LEVELS } from '../../src/observability/logger.js';
import { dumpYaml } from './template-slots.js';
import { DEFAULT_LOOKUP_KINDS } from '../../src/controller/lookup-caches/lookup-kinds.js';

/** What the defaults are read from: the parsed config/ objects (scripts/chart/config-facts.ts). */
export interface ConfigFacts {
  readonly imageRepository: string;
  readonly imageTag: string;
  readonly pullPolicy: string;
  readonly replicas: number;
  readonly resources: unknown;
  readonly logLevel: string;
  readonly targetRules: unknown;
}

type Schema = Readonly<Record<string, unknown>>;

export interface ValueDefinition {
  readonly path: string;
  readonly description: string;
  readonly default: unknown;
  readonly schema: Schema;
}

/** The operator's own default for --apply-existing-namespace-label. */
export const DEFAULT_APPLY_EXISTING_NAMESPACE_LABEL = 'apply-to-existing.kubemod.io/enabled=true';

const quantity: Schema = { anyOf: [{ type: 'string', minLength: 1 }, { type: 'number' }] };
const quantities: Schema = { type: 'object', additionalProperties: quantity };
const stringList: Schema = { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 };
const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const labelMap: Schema = { type: 'object', additionalProperties: { type: 'string' } };

export function valueDefinitions(facts: ConfigFacts): ValueDefinition[] {
  return [
    {
      path: 'image.repository',
      description: 'Operator image repository.',
      default: facts.imageRepository,
      schema: { type: 'string', minLength: 1, pattern: '^[^:@\\s]+(:[0-9]+)?(/[^:@\\s]+)*$' },
    },
    {
      path: 'image.tag',
      description: "Image tag; empty means the chart's appVersion.",
      default: '',
      schema: { type: 'string', pattern: '^([\\w][\\w.-]{0,127})?$' },
    },
    {
      path: 'image.digest',
      description: 'Image digest (sha256:...); when set it wins over the tag.',
      default: '',
      schema: { type: 'string', pattern: '^(sha256:[a-f0-9]{64})?$' },
    },
    {
      path: 'image.pullPolicy',
      description: 'Image pull policy.',
      default: facts.pullPolicy,
      schema: { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] },
    },
    {
      path: 'replicas',
      description:
        'Operator pods; all serve the webhooks, one (elected) writes status. 0 with webhook.urlBase for an operator run elsewhere.',
      default: facts.replicas,
      schema: { type: 'integer', minimum: 0 },
    },
    {
      path: 'resources',
      description: 'Requests and limits of the operator container.',
      default: facts.resources,
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: { requests: quantities, limits: quantities },
      },
    },
    {
      path: 'logLevel',
      description: 'Operator log level ($KUBEMOD_LOG_LEVEL).',
      default: facts.logLevel,
      schema: { type: 'string', enum: [...LOG_LEVELS] },
    },
    {
      path: 'targetResources',
      description:
        'Rules of the dragnet webhook: the resources and operations ModRules see (admissionregistration.k8s.io/v1 rules).',
      default: facts.targetRules,
      schema: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['apiGroups', 'apiVersions', 'operations', 'resources'],
          properties: {
            apiGroups: { type: 'array', items: { type: 'string' }, minItems: 1 },
            apiVersions: stringList,
            operations: {
              type: 'array',
              minItems: 1,
              items: { type: 'string', enum: ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'] },
            },
            resources: stringList,
            scope: { type: 'string', enum: ['*', 'Cluster', 'Namespaced'] },
          },
        },
      },
    },
    {
      path: 'ignoredNamespaces',
      description:
        'Namespaces the dragnet and pod-binding webhooks skip, by name (as well as namespaces labelled admission.kubemod.io/ignore=true).',
      default: [],
      schema: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: DNS_LABEL } },
    },
    {
      path: 'webhook.urlBase',
      description:
        'https://host:port the API server calls instead of the Service, for an operator run outside the cluster (--webhook-url-base); empty: the Service.',
      default: '',
      schema: { type: 'string', pattern: '^(https://[^/\\s]+/?)?$' },
    },
    {
      path: 'webhook.failurePolicy',
      description:
        "The dragnet webhook's failurePolicy. Ignore (KubeMod's): while no operator answers, objects are admitted unchecked. Fail: they are refused; the only setting under which a crashed replica lets nothing through (BENCHMARKS.md, docs/failure-policy.md).",
      default: 'Ignore',
      schema: { type: 'string', enum: ['Ignore', 'Fail'] },
    },
    {
      path: 'namespace.create',
      description:
        'Render the release namespace, labelled admission.kubemod.io/ignore=true. Set false with `helm install --create-namespace`; the webhooks then skip the release namespace by name.',
      default: true,
      schema: { type: 'boolean' },
    },
    {
      path: 'audit.intervalSeconds',
      description: 'Audit existing objects every n seconds (--audit-interval-seconds); 0 is off.',
      default: 0,
      schema: { type: 'integer', minimum: 0, maximum: 604800 },
    },
    {
      path: 'audit.policyReports.enabled',
      description:
        'While the periodic audit is on, grant the operator write access to policy reports (config/optional/policy-reports-rbac.yaml), which it writes in the report API the cluster serves.',
      default: true,
      schema: { type: 'boolean' },
    },
    {
      path: 'networkPolicy.enabled',
      description:
        'Render the NetworkPolicy (config/manager/network-policy.yaml): the webhook port open to the API server, the health port (/metrics) only to Pods in the namespace `monitoring`. Set false to apply your own.',
      default: true,
      schema: { type: 'boolean' },
    },
    {
      path: 'rbac.audit.enabled',
      description: 'Grant the audit read access to the targeted resources (not Secrets).',
      default: true,
      schema: { type: 'boolean' },
    },
    {
      path: 'applyToExisting.enabled',
      description:
        'Grant apply-to-existing update access to the targeted resources, and pass the namespace filters below.',
      default: false,
      schema: { type: 'boolean' },
    },
    {
      path: 'applyToExisting.namespaceLabel',
      description:
        'key=value label a namespace needs for apply-to-existing (--apply-existing-namespace-label).',
      default: DEFAULT_APPLY_EXISTING_NAMESPACE_LABEL,
      schema: { type: 'string', pattern: '^[A-Za-z0-9./_-]+=[A-Za-z0-9._-]*$' },
    },
    {
      path: 'applyToExisting.namespaceRegex',
      description:
        'RE2 regex namespace names must match for apply-to-existing (--apply-existing-namespace-regex); empty: any.',
      default: '',
      schema: { type: 'string' },
    },
    {
      path: 'namespaceLabelGuard.enabled',
      description:
        "Reserve kubemod-ts's namespace labels (admission.kubemod.io/ignore, the apply-to-existing label, *.kubemod.io/*) to cluster admins with a ValidatingAdmissionPolicy (config/optional/namespace-label-guard.yaml, Kubernetes 1.30+).",
      default: false,
      schema: { type: 'boolean' },
    },
    {
      path: 'lookups.kinds',
      description:
        'Kinds the operator caches for template lookups (--lookup-kinds): Kind[:metadata][@key=value&...] entries; Secrets only if listed. See docs/lookups-operator.md.',
      default: DEFAULT_LOOKUP_KINDS.split(','),
      schema: {
        type: 'array',
        maxItems: 32,
        items: { type: 'string', pattern: '^[A-Za-z]+(:metadata)?(@[^,@\\s]+)?$' },
      },
    },
    {
      path: 'lookups.rbac.enabled',
      description:
        'Grant the operator get/list/watch on the default lookup kinds (config/optional/lookups-rbac.yaml); without it lookups of them fail naming that file.',
      default: false,
      schema: { type: 'boolean' },
    },
    {
      path: 'monitoring.podMonitor.enabled',
      description:
        "Install a PodMonitor (Prometheus Operator) that scrapes the operator pods' /metrics.",
      default: false,
      schema: { type: 'boolean' },
    },
    {
      path: 'monitoring.podMonitor.labels',
      description:
        "Extra labels of the PodMonitor (to match your Prometheus's podMonitorSelector).",
      default: {},
      schema: labelMap,
    },
    {
      path: 'monitoring.prometheusRule.enabled',
      description:
        'Install the alerts of config/monitoring as a PrometheusRule (Prometheus Operator); see docs/monitoring.md.',
      default: false,
      schema: { type: 'boolean' },
    },
    {
      path: 'monitoring.prometheusRule.labels',
      description:
        "Extra labels of the PrometheusRule (to match your Prometheus's ruleSelector, e.g. release: <stack release>).",
      default: {},
      schema: labelMap,
    },
    {
      path: 'monitoring.dashboard.enabled',
      description:
        'Install the Grafana dashboard as a ConfigMap labelled grafana_dashboard: "1", which the Grafana sidecar loads.',
      default: false,
      schema: { type: 'boolean' },
    },
    {
      path: 'monitoring.dashboard.labels',
      description:
        'Extra labels of the dashboard ConfigMap (for a sidecar that selects on another label).',
      default: {},
      schema: labelMap,
    },
    {
      path: 'crds.keep',
      description:
        'Always true: `helm uninstall` keeps the CRDs and the release namespace (helm.sh/resource-policy: keep), so it never deletes a ModRule; false is refused. Delete them by hand when you mean it.',
      default: true,
      schema: { type: 'boolean', enum: [true] },
    },
  ];
}

interface Tree {
  [key: string]: Tree | ValueDefinition;
}

function isDefinition(node: Tree | ValueDefinition): node is ValueDefinition {
  return typeof (node as ValueDefinition).path === 'string' && 'schema' in node;
}

function tree(definitions: readonly ValueDefinition[]): Tree {
  const root: Tree = {};
  for (const definition of definitions) {
    const keys = definition.path.split('.');
    let node = root;
    for (const key of keys.slice(0, -1)) {
      const child = node[key] ?? {};
      if (isDefinition(child)) throw new Error(`values: ${definition.path} nests under a value`);
      node[key] = child;
      node = child;
    }
    node[keys[keys.length - 1] ?? ''] = definition;
  }
  return root;
}

/** The nested default values (what values.yaml parses to). */
export function defaultValues(definitions: readonly ValueDefinition[]): Record<string, unknown> {
  const build = (node: Tree): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(node).map(([key, child]) => [
        key,
        isDefinition(child) ? child.default : build(child),
      ]),
    );
  return build(tree(definitions));
}

/** values.yaml: every value with its description as a comment. */
export function valuesYaml(definitions: readonly ValueDefinition[]): string {
  const lines: string[] = [
    '# Default values of the kubemod-ts chart. GENERATED by scripts/chart/generate-chart.ts',
    '# (`npm run chart`); values.schema.json checks what you pass. See README.md for the table.',
  ];
  const write = (node: Tree, indent: string): void => {
    for (const [key, child] of Object.entries(node)) {
      if (!isDefinition(child)) {
        lines.push(`${indent}${key}:`);
        write(child, `${indent}  `);
        continue;
      }
      lines.push(`${indent}# ${child.description}`);
      const text = dumpYaml({ [key]: child.default }).trimEnd();
      lines.push(...text.split('\n').map((line) => `${indent}${line}`));
    }
  };
  write(tree(definitions), '');
  return `${lines.join('\n')}\n`;
}

/** values.schema.json: unknown keys are refused at every level, so a typo fails the install. */
export function valuesSchema(definitions: readonly ValueDefinition[]): Record<string, unknown> {
  const build = (node: Tree): Record<string, unknown> => ({
    type: 'object',
    additionalProperties: false,
    required: Object.keys(node),
    properties: Object.fromEntries(
      Object.entries(node).map(([key, child]) => [
        key,
        isDefinition(child) ? { description: child.description, ...child.schema } : build(child),
      ]),
    ),
  });
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'kubemod-ts chart values',
    ...build(tree(definitions)),
  };
}

/** The README's values table (Markdown). */
export function valuesTable(definitions: readonly ValueDefinition[]): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const rows = definitions.map((definition) => {
    const value = JSON.stringify(definition.default);
    const shown = value.length > 60 ? 'see values.yaml' : `\`${value}\``;
    return `| \`${definition.path}\` | ${cell(definition.description)} | ${cell(shown)} |`;
  });
  return ['| Value | Description | Default |', '| --- | --- | --- |', ...rows].join('\n');
}
