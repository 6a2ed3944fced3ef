import { makeRule } from '../../src/engine/test-rules.js';
import { RuleStore } from '../../src/engine/store.js';

/** Ten Patch rules that all match the benchmark Deployment, spread over three tiers. */
export function matchingRules(namespace: string): ReturnType<typeof makeRule>[] {
  const rules: ReturnType<typeof makeRule>[] = [];
  for (let i = 0; i < 10; i++) {
    const tier = i % 3;
    rules.push(
      makeRule(namespace, `match-${String(i)}`, {
        type: 'Patch',
        executionTier: tier,
        match: [
          { select: '$.kind', matchValue: 'Deployment' },
          { select: '$.metadata.labels.app', matchValue: 'web' },
          { select: '$.spec.template.spec.containers[*].image', matchRegex: '^nginx:' },
          { select: `$.metadata.annotations["bench/rule-${String(i)}"]`, negate: true },
        ],
        patch:
          i % 2 === 0
            ? [
                {
                  op: 'add',
                  path: `/metadata/annotations/bench~1rule-${String(i)}`,
                  value: 'tier-{{ .Target.metadata.name }}',
                },
              ]
            : [
                {
                  op: 'add',
                  select: '$.spec.template.spec.containers[? @.name == "web"]',
                  path: `/spec/template/spec/containers/#0/env/-1`,
                  value: `name: BENCH_${String(i)}\nvalue: '{{ .Namespace }}'`,
                },
              ],
      }),
    );
  }
  return rules;
}

const OTHER_KINDS = [
  'StatefulSet',
  'DaemonSet',
  'Service',
  'ConfigMap',
  'Secret',
  'Pod',
  'Job',
  'CronJob',
  'Ingress',
  'Role',
];

/** `count` rules for other kinds: realistic, indexed by their literal `$.kind` criteria. */
export function unrelatedRules(namespace: string, count: number): ReturnType<typeof makeRule>[] {
  const rules: ReturnType<typeof makeRule>[] = [];
  for (let i = 0; i < count; i++) {
    const kind = OTHER_KINDS[i % OTHER_KINDS.length] ?? 'Pod';
    rules.push(
      makeRule(namespace, `other-${String(i)}`, {
        type: i % 7 === 0 ? 'Reject' : 'Patch',
        executionTier: i % 5,
        match: [
          { select: '$.kind', matchValue: kind },
          { select: '$.metadata.labels.team', matchRegex: `^team-${String(i % 50)}$` },
        ],
        ...(i % 7 === 0
          ? {}
          : { patch: [{ op: 'add', path: '/metadata/labels/x', value: String(i) }] }),
      }),
    );
  }
  return rules;
}

export function storeOf(...groups: ReturnType<typeof makeRule>[][]): RuleStore {
  const store = new RuleStore();
  for (const group of groups) for (const rule of group) store.put(rule);
  return store;
}
