import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../engine/json.js';
import { CONFIGMAPS, FakeAuditApi } from '../audit/run/fake-audit-api.test-support.js';
import {
  MODRULES,
  MUTATING_WEBHOOK_CONFIGURATIONS,
  NAMESPACES,
} from '../audit/cluster/cluster-inputs.js';
import { parseAuditArgs } from './audit-config.js';
import { runAudit } from './audit-command.js';
import { load, loadAll } from 'js-yaml';
import { WG_POLICY } from '../reports/report-api.js';

function cluster(): FakeAuditApi {
  const api = new FakeAuditApi();
  api.discovery = [
    {
      group: '',
      version: 'v1',
      resources: [
        { name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['list'] },
        { name: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['list'] },
      ],
    },
  ];
  api.add(NAMESPACES, { metadata: { name: 'shop' } });
  api.add(NAMESPACES, { metadata: { name: 'blog' } });
  api.add(CONFIGMAPS, { metadata: { name: 'settings', namespace: 'shop' }, data: { a: '1' } });
  api.add(CONFIGMAPS, { metadata: { name: 'ok', namespace: 'shop', labels: { team: 'x' } } });
  api.add(CONFIGMAPS, { metadata: { name: 'post', namespace: 'blog' } });
  api.add(MODRULES, {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name: 'team', namespace: 'shop', generation: 1 },
    spec: {
      type: 'Patch',
      match: [
        { select: '$.kind', matchValue: 'ConfigMap' },
        { select: '$.metadata.labels.team', negate: true },
      ],
      patch: [{ op: 'add', path: '/metadata/labels/team', value: 'platform' }],
    },
  });
  return api;
}

async function run(
  argv: string[],
  api: FakeAuditApi,
  stderrIsTTY = false,
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runAudit(argv, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    env: {},
    api,
    stderrIsTTY,
    now: () => 0,
  });
  return { code, out, err };
}

interface Report {
  summary: { audited: number; nonConforming: number; complete: boolean };
  objects: { namespace: string; name: string; action: string; rules: string[]; diff: string }[];
  rules: { rule: string; nonConforming: number }[];
  unreadable: { resource: string; namespace?: string; status: number }[];
  notes: string[];
}

describe('kubemod-ts audit', () => {
  it("reports what the cluster's rules would patch, with the diff, and exits 1", async () => {
    const { code, out, err } = await run(['-o', 'json'], cluster());
    expect(err).toBe('');
    expect(code).toBe(1);
    const report = JSON.parse(out) as Report;
    expect(report.summary).toMatchObject({ audited: 2, nonConforming: 1, complete: true });
    expect(report.objects).toHaveLength(1);
    expect(report.objects[0]).toMatchObject({
      namespace: 'shop',
      name: 'settings',
      action: 'patch',
      rules: ['shop/team'],
    });
    expect(report.objects[0]?.diff).toContain('+    team: platform');
    expect(report.rules).toEqual([
      { rule: 'shop/team', nonConforming: 1, patch: 1, reject: 0, failures: 0 },
    ]);
    // The webhook configuration could not be read: the bundle's list is used, and said so.
    expect(report.notes.join('\n')).toMatch(/cannot read MutatingWebhookConfiguration/);
  });

  it('prints a table with the diff, and draws progress only on a terminal', async () => {
    const plain = await run([], cluster());
    expect(plain.out).toMatch(
      /NAMESPACE\s+KIND\s+NAME\s+ACTION\s+RULES\nshop\s+ConfigMap\s+settings\s+patch\s+shop\/team/,
    );
    expect(plain.out).toContain('# ConfigMap shop/settings would be patched by shop/team');
    expect(plain.out).toContain('2 object(s) audited, 1 non-conforming');
    expect(plain.err).toBe('');
    const tty = await run([], cluster(), true);
    expect(tty.err).toContain('audit [####################] 1/1 collections');
  });

  it('exits 0 when everything conforms and 2 when part of the cluster could not be read', async () => {
    const api = cluster();
    api.touch(CONFIGMAPS, 'shop', 'settings', (o) => {
      (o.metadata as JsonObject).labels = { team: 'y' };
    });
    expect((await run(['-o', 'yaml'], api)).code).toBe(0);
    api.forbidden.add('/api/v1/namespaces/shop/configmaps');
    const partial = await run(['-o', 'json'], api);
    expect(partial.code).toBe(2);
    const report = JSON.parse(partial.out) as Report;
    expect(report.summary.complete).toBe(false);
    expect(report.unreadable).toMatchObject([
      { resource: 'configmaps', namespace: 'shop', status: 403 },
    ]);
  });

  it('audits against --modrule files instead of the cluster rules (what-if)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-'));
    const file = join(dir, 'rule.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: api.kubemod.io/v1beta1',
        'kind: ModRule',
        'metadata: {name: no-posts}',
        'spec:',
        '  type: Reject',
        '  rejectMessage: no posts',
        "  match: [{select: '$.metadata.name', matchValue: post}]",
      ].join('\n'),
    );
    const api = cluster();
    const { code, out } = await run(['--modrule', file, '-n', 'blog', '-o', 'json'], api);
    expect(code).toBe(1);
    const report = JSON.parse(out) as Report;
    expect(report.objects).toMatchObject([
      { namespace: 'blog', name: 'post', action: 'reject', rules: ['blog/no-posts'] },
    ]);
    expect(api.calls.some((c) => c.includes('modrules'))).toBe(false);
  });

  it('reads the audited resources from the live dragnet webhook when it can', async () => {
    const api = cluster();
    api.add(MUTATING_WEBHOOK_CONFIGURATIONS, {
      metadata: { name: 'kubemod-mutating-webhook-configuration' },
      webhooks: [
        {
          name: 'dragnet.kubemod.io',
          rules: [
            { apiGroups: [''], resources: ['namespaces'], operations: ['UPDATE'], scope: '*' },
          ],
        },
      ],
    });
    const { code, out } = await run(['-o', 'json'], api);
    expect(code).toBe(0);
    expect((JSON.parse(out) as Report).summary.audited).toBe(0);
  });

  it('refuses bad flags with exit code 2', async () => {
    expect((await run(['-o', 'xml'], cluster())).code).toBe(2);
    expect((await run(['--page-size', '0'], cluster())).code).toBe(2);
    expect(parseAuditArgs(['--help'])).toBe('help');
  });

  it('prints the policy reports the operator would write with -o report', async () => {
    const api = cluster();
    api.add(MODRULES, {
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: {
        name: 'no-data',
        namespace: 'shop',
        generation: 1,
        annotations: { 'api.kubemod.io/enforcement': 'Warn' },
      },
      spec: {
        type: 'Reject',
        rejectMessage: 'ConfigMap {{ .Target.metadata.name }} has data',
        match: [
          { select: '$.kind', matchValue: 'ConfigMap' },
          { select: '$.data.a', matchValue: '1' },
        ],
      },
    });
    let out = '';
    let err = '';
    const code = await runAudit(['-o', 'report'], {
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      env: {},
      api,
      reportApis: () => Promise.resolve([WG_POLICY]),
    });
    expect(err).toBe('');
    expect(code).toBe(1);
    const docs = loadAll(out) as {
      kind: string;
      metadata: { name: string; namespace: string };
      summary: Record<string, number>;
      results: { policy: string; result: string; message: string; resources: { name: string }[] }[];
    }[];
    expect(docs.map((d) => `${d.kind} ${d.metadata.namespace}/${d.metadata.name}`)).toEqual([
      'PolicyReport shop/kubemod-ts',
    ]);
    const [report] = docs;
    expect(report?.summary).toEqual({ pass: 2, fail: 1, warn: 1, error: 0, skip: 0 });
    expect(
      report?.results.map((r) => `${r.resources[0]?.name ?? ''} ${r.policy} ${r.result}`),
    ).toEqual([
      'ok shop/no-data pass',
      'ok shop/team pass',
      'settings shop/no-data warn',
      'settings shop/team fail',
    ]);
    expect(report?.results[2]?.message).toBe('ConfigMap settings has data');

    // Without either report API, the OpenReports form is shown and the user is told.
    let note = '';
    await runAudit(['-o', 'report'], {
      stdout: (t) => (out = t),
      stderr: (t) => (note += t),
      env: {},
      api: cluster(),
    });
    expect(note).toContain('the cluster serves neither');
    expect((load(out) as { apiVersion: string }).apiVersion).toBe('openreports.io/v1alpha1');
  });
});
