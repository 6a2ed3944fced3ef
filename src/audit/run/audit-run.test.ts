import { describe, expect, it } from 'vitest';
import { evaluate } from '../../engine/evaluate.js';
import type { JsonObject } from '../../engine/json.js';
import { RuleStore } from '../../engine/store.js';
import { makeRule } from '../../engine/test-rules.js';
import { validateModRule } from '../../engine/validate-modrule.js';
import { compileRule } from '../../engine/rule.js';
import { auditObjects } from './audit-run.js';
import { CONFIGMAPS, FakeAuditApi, NAMESPACES_T } from './fake-audit-api.test-support.js';
import { identityOf } from './object-verdict.js';
import type { ListTask } from './scope-plan.js';

const cm = (namespace: string, name: string, labels: Record<string, string> = {}): JsonObject => ({
  metadata: { name, namespace, labels },
  data: { k: 'v' },
});

function setup(): { api: FakeAuditApi; store: RuleStore } {
  const api = new FakeAuditApi();
  for (let i = 0; i < 7; i++)
    api.add(CONFIGMAPS, cm('a', `cm${String(i)}`, i < 2 ? { team: 'x' } : {}));
  api.add(CONFIGMAPS, cm('b', 'other'));
  api.add(CONFIGMAPS, cm('quiet', 'skipped'));
  const store = new RuleStore();
  store.put(
    makeRule('kubemod-system', 'team', {
      type: 'Patch',
      targetNamespaceRegex: '.*',
      match: [
        { select: '$.kind', matchValue: 'ConfigMap' },
        { select: '$.metadata.labels.team', negate: true },
      ],
      patch: [{ op: 'add', path: '/metadata/labels/team', value: 'platform' }],
    }),
  );
  return { api, store };
}

const namespaces = new Map<string, JsonObject>([
  ['a', { metadata: { name: 'a' } }],
  ['b', { metadata: { name: 'b' } }],
  ['quiet', { metadata: { name: 'quiet', labels: { 'admission.kubemod.io/ignore': 'true' } } }],
]);

function audit(api: FakeAuditApi, store: RuleStore, tasks: ListTask[], keepFindings = true) {
  return auditObjects({
    api,
    tasks,
    namespaces,
    evaluate: (object) =>
      evaluate(store, { operation: 'UPDATE', namespace: identityOf(object).namespace, object }),
    diff: (before, after) =>
      `${JSON.stringify(before.metadata)} -> ${JSON.stringify(after.metadata)}`,
    keepFindings,
    pageSize: 3,
    concurrency: 2,
  });
}

describe('auditObjects', () => {
  it('pages through lists, skips ignored namespaces and counts per rule', async () => {
    const { api, store } = setup();
    const result = await audit(api, store, [
      { target: CONFIGMAPS, namespace: undefined, fallbackNamespaces: [] },
    ]);
    expect(api.calls).toEqual([
      'LIST /api/v1/configmaps limit=3 continue=',
      'LIST /api/v1/configmaps limit=3 continue=3',
      'LIST /api/v1/configmaps limit=3 continue=6',
    ]);
    expect(result.audited).toBe(8);
    expect(result.ignored).toBe(1);
    expect(result.nonConforming).toBe(6);
    expect(result.perRule.get('kubemod-system/team')).toEqual({
      nonConforming: 6,
      patch: 6,
      reject: 0,
      failures: 0,
    });
    expect(result.findings.map((f) => `${f.namespace ?? ''}/${f.name}`)).toEqual([
      'a/cm2',
      'a/cm3',
      'a/cm4',
      'a/cm5',
      'a/cm6',
      'b/other',
    ]);
    expect(result.findings[0]).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      action: 'patch',
      rules: ['kubemod-system/team'],
      patch: [{ op: 'add', path: '/metadata/labels/team', value: 'platform' }],
    });
    expect(result.findings[0]?.diff).toContain('"team":"platform"');
  });

  it('counts the objects violating a Warn or Audit rule per rule, without findings', async () => {
    const { api } = setup();
    const store = new RuleStore();
    for (const mode of ['Warn', 'Audit']) {
      const result = validateModRule({
        apiVersion: 'api.kubemod.io/v1beta1',
        kind: 'ModRule',
        metadata: {
          name: `needs-team-${mode.toLowerCase()}`,
          namespace: 'a',
          annotations: { 'api.kubemod.io/enforcement': mode },
        },
        spec: { type: 'Reject', match: [{ select: '$.metadata.labels.team', negate: true }] },
      });
      if (!result.ok) throw new Error(JSON.stringify(result.errors));
      store.put(compileRule(result.modRule));
    }
    const result = await audit(api, store, [
      { target: CONFIGMAPS, namespace: undefined, fallbackNamespaces: [] },
    ]);
    for (const rule of ['a/needs-team-warn', 'a/needs-team-audit']) {
      expect(result.perRule.get(rule)).toEqual({
        nonConforming: 5,
        patch: 0,
        reject: 0,
        failures: 0,
      });
    }
    // An update would be admitted: no object would be patched or rejected.
    expect(result.nonConforming).toBe(0);
    expect(result.findings).toEqual([]);
  });

  it('falls back to namespaces one by one when the cluster-wide list is forbidden, and reports what it cannot read', async () => {
    const { api, store } = setup();
    api.forbidden.add('/api/v1/configmaps');
    api.forbidden.add('/api/v1/namespaces/b/configmaps');
    const result = await audit(
      api,
      store,
      [{ target: CONFIGMAPS, namespace: undefined, fallbackNamespaces: ['a', 'b'] }],
      false,
    );
    expect(result.audited).toBe(7);
    expect(result.nonConforming).toBe(5);
    expect(result.findings).toEqual([]);
    expect(result.unreadable).toEqual([
      {
        resource: 'configmaps',
        kind: 'ConfigMap',
        namespace: 'b',
        status: 403,
        reason: '/api/v1/namespaces/b/configmaps is forbidden',
      },
    ]);
  });

  it('skips Namespaces that carry the ignore label themselves', async () => {
    const api = new FakeAuditApi();
    api.add(NAMESPACES_T, { metadata: { name: 'on' } });
    api.add(NAMESPACES_T, {
      metadata: { name: 'off', labels: { 'admission.kubemod.io/ignore': 'true' } },
    });
    const store = new RuleStore();
    store.put(
      makeRule('kubemod-system', 'ns', {
        type: 'Reject',
        match: [{ select: '$.kind', matchValue: 'Namespace' }],
      }),
    );
    const result = await audit(api, store, [
      { target: NAMESPACES_T, namespace: undefined, fallbackNamespaces: [] },
    ]);
    expect(result.audited).toBe(1);
    expect(result.ignored).toBe(1);
    expect(result.findings).toMatchObject([
      { kind: 'Namespace', name: 'on', action: 'reject', rules: ['kubemod-system/ns'], diff: '' },
    ]);
  });

  it('sees an object served under two API groups once', async () => {
    const { api, store } = setup();
    // The same objects under a second group (as Ingresses in extensions and networking.k8s.io).
    const alias = { ...CONFIGMAPS, group: 'alias.example.com' };
    const result = await audit(api, store, [
      { target: CONFIGMAPS, namespace: 'a', fallbackNamespaces: [] },
      { target: alias, namespace: 'a', fallbackNamespaces: [] },
    ]);
    expect(result.audited).toBe(7);
    expect(result.nonConforming).toBe(5);
  });

  it("counts for a rule only the objects its author may list (the operator's mayCount)", async () => {
    const { api, store } = setup();
    const asked: string[] = [];
    const result = await auditObjects({
      api,
      tasks: [{ target: CONFIGMAPS, namespace: undefined, fallbackNamespaces: [] }],
      namespaces,
      evaluate: (object) =>
        evaluate(store, { operation: 'UPDATE', namespace: identityOf(object).namespace, object }),
      diff: () => '',
      keepFindings: false,
      pageSize: 3,
      concurrency: 1,
      mayCount: (rule, target, namespace) => {
        asked.push(`${rule} ${target.resource} ${namespace ?? ''}`);
        return Promise.resolve(namespace === 'b');
      },
    });
    // Five non-conforming ConfigMaps in namespace a the author may not list: not counted.
    expect(result.perRule.get('kubemod-system/team')).toEqual({
      nonConforming: 1,
      patch: 1,
      reject: 0,
      failures: 0,
    });
    expect(new Set(asked)).toEqual(
      new Set(['kubemod-system/team configmaps a', 'kubemod-system/team configmaps b']),
    );
  });
});
