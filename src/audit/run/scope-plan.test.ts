import { describe, expect, it } from 'vitest';
import { makeRule } from '../../engine/test-rules.js';
import { planListTasks, type ListTask } from './scope-plan.js';
import { CONFIGMAPS, DEPLOYMENTS, NAMESPACES_T } from './fake-audit-api.test-support.js';
import type { JsonObject } from '../../engine/json.js';

const patch = [{ op: 'add', path: '/metadata/labels/x', value: '"y"' }];
const forKind = (kind: string): object[] => [{ select: '$.kind', matchValue: kind }];
const targets = [NAMESPACES_T, CONFIGMAPS, DEPLOYMENTS];

function ns(name: string, labels: Record<string, string> = {}): [string, JsonObject] {
  return [name, { kind: 'Namespace', metadata: { name, labels } }];
}

function show(tasks: ListTask[]): string[] {
  return tasks.map(
    (t) =>
      `${t.target.resource}@${t.namespace ?? '*'}${t.fallbackNamespaces.length > 0 ? `[${t.fallbackNamespaces.join(',')}]` : ''}`,
  );
}

describe('planListTasks', () => {
  it('lists only the kinds and namespaces of namespaced rules', () => {
    const rules = [
      makeRule('shop', 'a', { type: 'Patch', match: forKind('Deployment'), patch }),
      makeRule('blog', 'b', { type: 'Patch', match: forKind('Deployment'), patch }),
    ];
    expect(show(planListTasks({ rules, targets, namespaces: undefined }))).toEqual([
      'deployments@blog',
      'deployments@shop',
    ]);
  });

  it('lists all kinds for a rule that may match any kind, and skips ignored namespaces', () => {
    const rules = [
      makeRule('shop', 'a', { type: 'Reject', match: [{ select: '$.metadata.name' }] }),
      makeRule('quiet', 'b', { type: 'Reject', match: [{ select: '$.metadata.name' }] }),
    ];
    const namespaces = new Map([
      ns('shop'),
      ns('quiet', { 'admission.kubemod.io/ignore': 'true' }),
    ]);
    expect(show(planListTasks({ rules, targets, namespaces }))).toEqual([
      'configmaps@shop',
      'deployments@shop',
    ]);
  });

  it('lists across all namespaces for a cluster-wide regex rule, with per-namespace fallback', () => {
    const rules = [
      makeRule('kubemod-system', 'c', {
        type: 'Patch',
        targetNamespaceRegex: '^team-',
        match: forKind('ConfigMap'),
        patch,
      }),
    ];
    const namespaces = new Map([ns('team-a'), ns('team-b'), ns('other')]);
    expect(show(planListTasks({ rules, targets, namespaces }))).toEqual([
      'configmaps@*[team-a,team-b]',
    ]);
    expect(show(planListTasks({ rules, targets, namespaces, onlyNamespace: 'team-b' }))).toEqual([
      'configmaps@team-b',
    ]);
    expect(show(planListTasks({ rules, targets, namespaces, onlyNamespace: 'other' }))).toEqual([]);
  });

  it('lists cluster-scoped kinds only for cluster-wide rules without a namespace regex', () => {
    const clusterScoped = makeRule('kubemod-system', 'n', {
      type: 'Patch',
      match: forKind('Namespace'),
      patch,
    });
    expect(show(planListTasks({ rules: [clusterScoped], targets, namespaces: undefined }))).toEqual(
      ['namespaces@*'],
    );
    expect(
      show(
        planListTasks({
          rules: [clusterScoped],
          targets,
          namespaces: undefined,
          onlyNamespace: 'x',
        }),
      ),
    ).toEqual([]);
  });

  it('leaves out rules that an UPDATE does not run', () => {
    const createOnly = makeRule('shop', 'a', {
      type: 'Patch',
      admissionOperations: ['CREATE'],
      match: forKind('Deployment'),
      patch,
    });
    expect(planListTasks({ rules: [createOnly], targets, namespaces: undefined })).toEqual([]);
  });
});
