import { describe, expect, it } from 'vitest';
import { KubeApiError, type KubeClient, type KubeRequest } from '../kube/kube-client.js';
import type { JsonObject } from '../engine/json.js';
import { OPEN_REPORTS, WG_POLICY } from './report-api.js';
import { buildReports, PARTIAL_ANNOTATION, partialNotes } from './report-build.js';
import { reportResult } from './report-fixtures.test-support.js';
import { canonicalJson, sameContent, syncReports } from './report-sync.js';

/** Report collections in memory: list (label selector), create, replace, delete. */
class FakeReports implements KubeClient {
  readonly objects = new Map<string, JsonObject>();
  readonly writes: string[] = [];
  private rv = 1;

  request(req: KubeRequest): Promise<JsonObject> {
    const body = req.body as JsonObject | undefined;
    if (req.method === 'GET') {
      const selector = String(req.query?.labelSelector ?? '');
      const [k, v] = selector.split('=');
      // `/apis/g/v/reports` lists every namespace's; `/apis/g/v/clusterreports` the cluster's.
      const items = [...this.objects.entries()]
        .filter(([path]) => {
          const [, , group, version] = path.split('/');
          const plural = path.split('/').at(-2);
          return req.path === `/apis/${group ?? ''}/${version ?? ''}/${plural ?? ''}`;
        })
        .map(([, obj]) => obj)
        .filter((obj) => {
          const labels = (obj.metadata as { labels?: Record<string, string> }).labels ?? {};
          return k === undefined || k === '' || labels[k] === v;
        });
      return Promise.resolve({ items, metadata: {} });
    }
    this.writes.push(`${req.method} ${req.path}`);
    if (req.method === 'POST') {
      const name = (body?.metadata as { name: string }).name;
      return Promise.resolve(this.save(`${req.path}/${name}`, body ?? {}));
    }
    if (req.method === 'PUT') {
      const stored = this.objects.get(req.path);
      const want = (body?.metadata as { resourceVersion?: string }).resourceVersion;
      if (stored === undefined) return Promise.reject(new KubeApiError(404, 'not found'));
      if (want !== (stored.metadata as { resourceVersion: string }).resourceVersion)
        return Promise.reject(new KubeApiError(409, 'conflict'));
      return Promise.resolve(this.save(req.path, body ?? {}));
    }
    if (req.method === 'DELETE') {
      if (!this.objects.delete(req.path)) return Promise.reject(new KubeApiError(404, 'gone'));
      return Promise.resolve({});
    }
    return Promise.reject(new Error(`unexpected ${req.method}`));
  }

  list(): Promise<JsonObject> {
    return Promise.reject(new Error('not used'));
  }

  watch(): never {
    throw new Error('not used');
  }

  private save(path: string, obj: JsonObject): JsonObject {
    const saved = {
      ...structuredClone(obj),
      metadata: { ...(obj.metadata as JsonObject), resourceVersion: String(++this.rv) },
    };
    // Keyed by the namespaced path, so that a list across namespaces finds it by its plural.
    this.objects.set(path, saved);
    return saved;
  }
}

describe('syncReports', () => {
  const first = [
    reportResult('shop', 'a', 'fail'),
    reportResult('shop', 'b', 'pass'),
    reportResult(undefined, 'ns', 'pass', 'kubemod-system/c'),
  ];

  it('creates the reports, then writes nothing while nothing changes', async () => {
    const kube = new FakeReports();
    const created = await syncReports(kube, OPEN_REPORTS, buildReports(OPEN_REPORTS, first));
    expect(created).toMatchObject({ created: 2, updated: 0, unchanged: 0, deleted: 0, failed: [] });
    expect([...kube.objects.keys()].sort()).toEqual([
      '/apis/openreports.io/v1alpha1/clusterreports/kubemod-ts',
      '/apis/openreports.io/v1alpha1/namespaces/shop/reports/kubemod-ts',
    ]);
    kube.writes.length = 0;
    const again = await syncReports(
      kube,
      OPEN_REPORTS,
      buildReports(OPEN_REPORTS, [...first].reverse()),
    );
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 2, deleted: 0 });
    expect(kube.writes).toEqual([]);
  });

  it('updates a changed report in place and deletes reports no rule fills any more', async () => {
    const kube = new FakeReports();
    await syncReports(kube, OPEN_REPORTS, buildReports(OPEN_REPORTS, first, 1));
    const path = '/apis/openreports.io/v1alpha1/namespaces/shop/reports/kubemod-ts';
    const before = kube.objects.get(path);
    kube.writes.length = 0;
    const next = [reportResult('shop', 'a', 'pass')];
    const result = await syncReports(kube, OPEN_REPORTS, buildReports(OPEN_REPORTS, next, 1));
    expect(result).toMatchObject({ created: 0, updated: 1, unchanged: 0, deleted: 2 });
    expect(kube.writes.sort()).toEqual([
      'DELETE /apis/openreports.io/v1alpha1/clusterreports/kubemod-ts',
      'DELETE /apis/openreports.io/v1alpha1/namespaces/shop/reports/kubemod-ts-2',
      `PUT ${path}`,
    ]);
    const after = kube.objects.get(path);
    expect(after?.summary).toEqual({ pass: 1, fail: 0, warn: 0, error: 0, skip: 0 });
    expect((after?.metadata as JsonObject).resourceVersion).not.toBe(
      (before?.metadata as JsonObject).resourceVersion,
    );
  });

  it("never touches reports that are not kubemod-ts's, and clears its reports from a stale API", async () => {
    const kube = new FakeReports();
    await kube.request({
      method: 'POST',
      path: '/apis/openreports.io/v1alpha1/namespaces/shop/reports',
      body: {
        metadata: { name: 'kyverno-thing', labels: { 'app.kubernetes.io/managed-by': 'kyverno' } },
      },
    });
    await syncReports(kube, WG_POLICY, buildReports(WG_POLICY, first));
    expect(
      kube.objects.has('/apis/wgpolicyk8s.io/v1alpha2/namespaces/shop/policyreports/kubemod-ts'),
    ).toBe(true);
    const moved = await syncReports(kube, OPEN_REPORTS, buildReports(OPEN_REPORTS, first), [
      WG_POLICY,
    ]);
    expect(moved).toMatchObject({ created: 2, deleted: 2 });
    expect([...kube.objects.keys()].sort()).toEqual([
      '/apis/openreports.io/v1alpha1/clusterreports/kubemod-ts',
      '/apis/openreports.io/v1alpha1/namespaces/shop/reports/kubemod-ts',
      '/apis/openreports.io/v1alpha1/namespaces/shop/reports/kyverno-thing',
    ]);
  });

  it('records a failed write and goes on', async () => {
    const kube = new FakeReports();
    const failing: KubeClient = {
      request: (req) =>
        req.method === 'POST' && req.path.includes('clusterreports')
          ? Promise.reject(new KubeApiError(403, 'forbidden'))
          : kube.request(req),
      list: () => kube.list(),
      watch: () => kube.watch(),
    };
    const result = await syncReports(failing, OPEN_REPORTS, buildReports(OPEN_REPORTS, first));
    expect(result.created).toBe(1);
    expect(result.failed).toEqual(['create ClusterReport kubemod-ts: forbidden']);
  });
});

describe('syncReports of a partial scope', () => {
  const first = [
    reportResult('shop', 'a', 'fail'),
    reportResult('shop', 'b', 'pass'),
    reportResult(undefined, 'ns', 'pass', 'kubemod-system/c'),
  ];
  const SHOP = '/apis/openreports.io/v1alpha1/namespaces/shop/reports/kubemod-ts';
  const annotation = (obj: JsonObject | undefined): string | undefined =>
    (obj?.metadata as { annotations?: Record<string, string> } | undefined)?.annotations?.[
      PARTIAL_ANNOTATION
    ];

  it('never deletes a report because a bound left its namespace without results', async () => {
    const kube = new FakeReports();
    await syncReports(kube, OPEN_REPORTS, buildReports(OPEN_REPORTS, first));
    const before = kube.objects.get(SHOP);
    kube.writes.length = 0;
    // The next audit kept nothing of shop (another namespace filled the audit's total bound).
    const notes = partialNotes(new Map([['shop', { dropped: 2, reasons: ['total'] as const }]]));
    const result = await syncReports(
      kube,
      OPEN_REPORTS,
      buildReports(
        OPEN_REPORTS,
        first.filter((r) => r.subject.namespace !== 'shop'),
      ),
      [],
      notes,
    );
    expect(result).toMatchObject({ deleted: 0, kept: 1, failed: [] });
    const kept = kube.objects.get(SHOP);
    expect(kept?.results).toEqual(before?.results);
    expect(annotation(kept)).toBe(
      '2 result(s) of the last audit left out (bounds reached: --report-max-findings, --report-max-passes)',
    );
    // Marked once: the same note again writes nothing.
    kube.writes.length = 0;
    await syncReports(
      kube,
      OPEN_REPORTS,
      buildReports(
        OPEN_REPORTS,
        first.filter((r) => r.subject.namespace !== 'shop'),
      ),
      [],
      notes,
    );
    expect(kube.writes).toEqual([]);
    // Whole again: the report is rewritten without the mark.
    const whole = await syncReports(kube, OPEN_REPORTS, buildReports(OPEN_REPORTS, first));
    expect(whole).toMatchObject({ updated: 1, deleted: 0 });
    expect(annotation(kube.objects.get(SHOP))).toBeUndefined();
  });

  it('writes a partial report with the mark, and drops the mark once it is whole', async () => {
    const kube = new FakeReports();
    const partial = new Map([['shop', { dropped: 3, reasons: ['rule'] as const }]]);
    await syncReports(
      kube,
      OPEN_REPORTS,
      buildReports(OPEN_REPORTS, first, undefined, partial),
      [],
      partialNotes(partial),
    );
    expect(annotation(kube.objects.get(SHOP))).toMatch(/^3 result\(s\) .*per-rule\)$/);
    const result = await syncReports(kube, OPEN_REPORTS, buildReports(OPEN_REPORTS, first));
    expect(result).toMatchObject({ updated: 1, unchanged: 1 });
    expect(annotation(kube.objects.get(SHOP))).toBeUndefined();
  });
});

describe('sameContent', () => {
  it('compares what kubemod-ts sets, ignoring key order and what others add', () => {
    const [desired] = buildReports(OPEN_REPORTS, [reportResult('shop', 'a', 'fail')]);
    const manifest = desired?.manifest ?? {};
    const stored = JSON.parse(canonicalJson(manifest)) as JsonObject;
    stored.metadata = {
      ...(stored.metadata as JsonObject),
      resourceVersion: '7',
      annotations: { note: 'x' },
      labels: { 'app.kubernetes.io/managed-by': 'kubemod-ts', extra: 'y' },
    };
    expect(sameContent(stored, manifest)).toBe(true);
    expect(sameContent({ ...stored, summary: { pass: 1 } }, manifest)).toBe(false);
    expect(sameContent({ ...stored, metadata: { name: 'kubemod-ts' } }, manifest)).toBe(false);
  });
});
