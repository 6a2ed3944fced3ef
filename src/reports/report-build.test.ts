import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../engine/json.js';
import { OPEN_REPORTS, WG_POLICY } from './report-api.js';
import { buildReports, PARTIAL_ANNOTATION, reportName } from './report-build.js';
import { reportResult as result } from './report-fixtures.test-support.js';

function results(manifest: JsonObject): { resources: { name: string }[]; result: string }[] {
  return manifest.results as never;
}

describe('buildReports', () => {
  it('makes one report per namespace and a cluster report, with summaries', () => {
    const reports = buildReports(OPEN_REPORTS, [
      result('shop', 'b', 'fail'),
      result(undefined, 'node-thing', 'pass', 'kubemod-system/c'),
      result('shop', 'a', 'pass'),
      result('bank', 'x', 'warn'),
      result('shop', 'a', 'error', 'shop/another'),
    ]);
    expect(reports.map((r) => [r.namespace, r.name, r.manifest.kind])).toEqual([
      [undefined, 'kubemod-ts', 'ClusterReport'],
      ['bank', 'kubemod-ts', 'Report'],
      ['shop', 'kubemod-ts', 'Report'],
    ]);
    const shop = reports[2]?.manifest;
    expect(shop).toMatchObject({
      apiVersion: 'openreports.io/v1alpha1',
      metadata: {
        name: 'kubemod-ts',
        namespace: 'shop',
        labels: { 'app.kubernetes.io/managed-by': 'kubemod-ts' },
      },
      source: 'kubemod-ts',
      summary: { pass: 1, fail: 1, warn: 0, error: 1, skip: 0 },
    });
    // Sorted by object, then rule.
    expect(results(shop ?? {}).map((r) => `${r.resources[0]?.name ?? ''}:${r.result}`)).toEqual([
      'a:error',
      'a:pass',
      'b:fail',
    ]);
    expect(results(shop ?? {})[0]).toEqual({
      source: 'kubemod-ts',
      policy: 'shop/another',
      rule: 'another',
      result: 'error',
      scored: true,
      message: 'error a',
      properties: { enforcement: 'Enforce', ruleType: 'Reject' },
      resources: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'shop', uid: 'uid-a' },
      ],
    });
    expect(reports[0]?.manifest.metadata).toEqual({
      name: 'kubemod-ts',
      labels: { 'app.kubernetes.io/managed-by': 'kubemod-ts' },
    });
  });

  it('writes the older API without a top-level source', () => {
    const [report] = buildReports(WG_POLICY, [result('shop', 'a', 'fail')]);
    expect(report?.manifest.apiVersion).toBe('wgpolicyk8s.io/v1alpha2');
    expect(report?.manifest.kind).toBe('PolicyReport');
    expect(report?.manifest).not.toHaveProperty('source');
    expect(results(report?.manifest ?? {})[0]).toHaveProperty('source', 'kubemod-ts');
  });

  it('pages results over reports with stable names, each with its own summary', () => {
    const many = Array.from({ length: 7 }, (_, i) =>
      result('shop', `cm-${String(i)}`, i % 2 === 0 ? 'pass' : 'fail'),
    );
    const reports = buildReports(OPEN_REPORTS, [...many].reverse(), 3);
    expect(reports.map((r) => r.name)).toEqual(['kubemod-ts', 'kubemod-ts-2', 'kubemod-ts-3']);
    expect(reports.map((r) => results(r.manifest).length)).toEqual([3, 3, 1]);
    expect(reports.map((r) => r.manifest.summary)).toEqual([
      { pass: 2, fail: 1, warn: 0, error: 0, skip: 0 },
      { pass: 1, fail: 2, warn: 0, error: 0, skip: 0 },
      { pass: 1, fail: 0, warn: 0, error: 0, skip: 0 },
    ]);
    expect(results(reports[2]?.manifest ?? {})[0]?.resources[0]?.name).toBe('cm-6');
    // The same results in another order make the same reports.
    expect(buildReports(OPEN_REPORTS, many, 3)).toEqual(reports);
    expect(reportName(1)).toBe('kubemod-ts');
    expect(reportName(12)).toBe('kubemod-ts-12');
  });

  it("puts a cluster-wide rule's results about namespaced objects in the cluster report", () => {
    const reports = buildReports(OPEN_REPORTS, [
      result('shop', 'a', 'fail'),
      result('shop', 'a', 'fail', 'kubemod-system/platform'),
      result('bank', 'a', 'pass', 'kubemod-system/platform'),
    ]);
    expect(reports.map((r) => [r.namespace, r.manifest.kind])).toEqual([
      [undefined, 'ClusterReport'],
      ['shop', 'Report'],
    ]);
    const cluster = reports[0]?.manifest.results as {
      policy: string;
      resources: { namespace?: string }[];
    }[];
    // Sorted by the object's namespace too, and each result names it.
    expect(cluster.map((r) => `${r.resources[0]?.namespace ?? ''} ${r.policy}`)).toEqual([
      'bank kubemod-system/platform',
      'shop kubemod-system/platform',
    ]);
    expect(results(reports[1]?.manifest ?? {})).toHaveLength(1);
  });

  it('marks every page of a partial scope with the bounds it reached', () => {
    const reports = buildReports(
      OPEN_REPORTS,
      [result('shop', 'a', 'fail'), result('shop', 'b', 'fail'), result('bank', 'x', 'fail')],
      1,
      new Map([['shop', { dropped: 7, reasons: ['namespace', 'rule'] as const }]]),
    );
    const annotations = reports.map(
      (r) => (r.manifest.metadata as { annotations?: Record<string, string> }).annotations,
    );
    expect(annotations).toEqual([
      undefined,
      {
        [PARTIAL_ANNOTATION]:
          '7 result(s) of the last audit left out (bounds reached: --report-max-results-per-namespace, --report-max-results-per-rule)',
      },
      {
        [PARTIAL_ANNOTATION]:
          '7 result(s) of the last audit left out (bounds reached: --report-max-results-per-namespace, --report-max-results-per-rule)',
      },
    ]);
  });

  it('makes no report without results and refuses a bad page size', () => {
    expect(buildReports(OPEN_REPORTS, [])).toEqual([]);
    expect(() => buildReports(OPEN_REPORTS, [], 0)).toThrow(/resultsPerReport/);
  });
});
