/**
 * Rules written to be as slow as the unit budgets allow (bench/backstop-margin.ts): each does the
 * costliest work per unit its engine path knows, on an object that gives it all it can take.
 */
import type { JsonObject } from '../../src/engine/json.js';
import { HOSTILE_TEMPLATES } from './hostile-rules.js';

export interface MarginProbe {
  readonly name: string;
  /** ModRule YAML (one or more documents) in namespace `probe`. */
  readonly rules: string;
  readonly object: () => JsonObject;
  /** Several rules sharing their namespace's pool: compared with the namespace backstop. */
  readonly namespaceWide?: boolean;
}

function rule(name: string, match: string, patch: string): string {
  return [
    'apiVersion: api.kubemod.io/v1beta1',
    'kind: ModRule',
    'metadata:',
    `  name: ${name}`,
    '  namespace: probe',
    'spec:',
    '  type: Patch',
    '  match:',
    `    - select: '${match.replaceAll("'", "''")}'`,
    '  patch:',
    '    - op: add',
    '      path: /metadata/annotations/probe',
    `      value: '${patch.replaceAll("'", "''")}'`,
  ].join('\n');
}

function configMap(data: Record<string, string>): JsonObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', annotations: {} }, data };
}

/** A ConfigMap with `n` keys whose values are `len` characters. */
function wide(n: number, len: number): JsonObject {
  const data: Record<string, string> = {};
  for (let i = 0; i < n; i++) data[`k${String(i)}`] = `${String(i)}-${'ab'.repeat(len / 2)}`;
  return configMap(data);
}

/** Nested lists `depth` deep, `fan` wide, with an `image` at every level. */
function deep(depth: number, fan: number): JsonObject {
  let node: JsonObject = { image: 'x' };
  for (let i = 0; i < depth; i++)
    node = { image: 'x', items: Array.from({ length: fan }, () => node) };
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', annotations: {} }, spec: node };
}

export function marginProbes(): MarginProbe[] {
  const templates = Object.entries(HOSTILE_TEMPLATES).map(([name, template]) => ({
    name: `template ${name}`,
    rules: rule(`t-${name}`, '$.kind', template),
    object: () => configMap({ a: 'b' }),
  }));
  const manyRules = Array.from({ length: 5 }, (_, i) =>
    rule(`r${String(i)}`, '$.data[? @ =~ "(a|b)*c"]', 'x'),
  ).join('\n---\n');
  return [
    ...templates,
    {
      name: 'select: regex filter over 20,000 values',
      rules: rule('regex-filter', '$.data[? @ =~ "(a|b)*c"]', 'x'),
      object: () => wide(20_000, 64),
    },
    {
      name: 'select: recursive descent',
      rules: rule('descent', '$..image', 'x'),
      object: () => deep(8, 5),
    },
    {
      name: 'template: toJson of a large object',
      rules: rule('tojson', '$.kind', '{{ toJson .Target }}'),
      object: () => wide(5_000, 64),
    },
    {
      name: 'template: regexReplaceAll over a large value',
      rules: rule(
        'regex-replace',
        '$.kind',
        '{{ range $k, $v := .Target.data }}{{ regexReplaceAll "(a|b)" $v "${1}" }}{{ end }}',
      ),
      object: () => wide(2_000, 256),
    },
    {
      name: 'namespace: 5 regex-filter rules sharing the pool',
      rules: manyRules,
      object: () => wide(20_000, 64),
      namespaceWide: true,
    },
  ];
}
