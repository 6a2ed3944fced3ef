import type { JsonObject } from '../engine/json.js';
import { apiVersionOfReports, type ReportApi } from './report-api.js';
import type { ReportResult, ResultKind } from './report-result.js';
import {
  REPORT_BOUND_FLAGS,
  scopeKey,
  type BoundReached,
  type PartialScope,
  type ReportBounds,
} from './report-quota.js';

/** The `source` of every result and report kubemod-ts writes. */
export const REPORT_SOURCE = 'kubemod-ts';
/** The label that marks a report as kubemod-ts's own: cleanup only ever touches these. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'kubemod-ts';
/**
 * The annotation on a report whose scope left results out because a bound was reached; its value
 * says how many and which bound. A report so marked is never deleted for want of results.
 */
export const PARTIAL_ANNOTATION = 'api.kubemod.io/report-partial';
/** The first report of a namespace (or of the cluster); later pages are `<base>-2`, `<base>-3`, … */
export const REPORT_BASE_NAME = 'kubemod-ts';
/**
 * Results per report. With messages cut to 512 characters and Kubernetes names at most 253, a
 * result is under 2 KiB, so a full report stays well below etcd's 1.5 MiB object limit.
 */
export const DEFAULT_RESULTS_PER_REPORT = 500;

export interface ReportSummary {
  pass: number;
  fail: number;
  warn: number;
  error: number;
  skip: number;
}

/** A report as it should be: its identity and the content compared with the stored one. */
export interface DesiredReport {
  /** Undefined for the cluster report. */
  readonly namespace: string | undefined;
  readonly name: string;
  readonly manifest: JsonObject;
}

/** `kubemod-ts` for the first page, `kubemod-ts-<n>` for page n > 1 (stable across runs). */
export function reportName(page: number): string {
  return page === 1 ? REPORT_BASE_NAME : `${REPORT_BASE_NAME}-${String(page)}`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Results in a fixed order (object, then rule), so that the same findings give the same reports. */
export function compareResults(a: ReportResult, b: ReportResult): number {
  const ka = [
    a.subject.kind,
    a.subject.namespace ?? '',
    a.subject.name,
    a.subject.apiVersion,
    a.policy,
  ].join('\u0000');
  const kb = [
    b.subject.kind,
    b.subject.namespace ?? '',
    b.subject.name,
    b.subject.apiVersion,
    b.policy,
  ].join('\u0000');
  return compareText(ka, kb);
}

export function summaryOf(results: readonly ReportResult[]): ReportSummary {
  const summary: ReportSummary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const r of results) summary[r.result satisfies ResultKind]++;
  return summary;
}

/** A result as both APIs spell it (no timestamp: it would change every report on every run). */
function resultManifest(r: ReportResult): JsonObject {
  const resource: JsonObject = {
    apiVersion: r.subject.apiVersion,
    kind: r.subject.kind,
    name: r.subject.name,
  };
  if (r.subject.namespace !== undefined) resource.namespace = r.subject.namespace;
  if (r.subject.uid !== undefined) resource.uid = r.subject.uid;
  const properties: JsonObject = {};
  for (const key of Object.keys(r.properties).sort()) properties[key] = r.properties[key] ?? '';
  return {
    source: REPORT_SOURCE,
    policy: r.policy,
    rule: r.rule,
    result: r.result,
    scored: true,
    message: r.message,
    properties,
    resources: [resource],
  };
}

const BOUND_FLAG: Readonly<Record<BoundReached, readonly (keyof ReportBounds)[]>> = {
  rule: ['maxPerRule'],
  namespace: ['maxPerNamespace'],
  total: ['maxFindings', 'maxPasses'],
};

/** The PARTIAL_ANNOTATION text of a scope that left results out. */
export function partialNote(partial: PartialScope): string {
  const flags = partial.reasons.flatMap((r) => BOUND_FLAG[r].map((k) => REPORT_BOUND_FLAGS[k]));
  return `${String(partial.dropped)} result(s) of the last audit left out (bounds reached: ${flags.join(', ')})`;
}

/** partialNote of every partial scope, by scopeKey. */
export function partialNotes(
  partial: ReadonlyMap<string, PartialScope> | undefined,
): Map<string, string> {
  return new Map(
    [...(partial ?? new Map<string, PartialScope>())].map(([k, p]) => [k, partialNote(p)]),
  );
}

function reportManifest(
  api: ReportApi,
  namespace: string | undefined,
  name: string,
  results: readonly ReportResult[],
  note: string | undefined,
): JsonObject {
  const metadata: JsonObject = { name, labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE } };
  if (namespace !== undefined) metadata.namespace = namespace;
  if (note !== undefined) metadata.annotations = { [PARTIAL_ANNOTATION]: note };
  const summary = summaryOf(results);
  return {
    apiVersion: apiVersionOfReports(api),
    kind: namespace === undefined ? api.clusterKind : api.kind,
    metadata,
    ...(api.topLevelSource ? { source: REPORT_SOURCE } : {}),
    summary: { ...summary },
    results: results.map(resultManifest),
  };
}

/**
 * The reports a set of results makes: one per namespace that has results of its own rules and
 * one cluster report for cluster-scoped objects and cluster-wide rules (by the results'
 * reportNamespace), each split into pages of `resultsPerReport` results (named by reportName),
 * results in compareResults order. Namespaces and reports come out sorted by name. Every page of
 * a scope in `partial` carries PARTIAL_ANNOTATION.
 */
export function buildReports(
  api: ReportApi,
  results: readonly ReportResult[],
  resultsPerReport: number = DEFAULT_RESULTS_PER_REPORT,
  partial?: ReadonlyMap<string, PartialScope>,
): DesiredReport[] {
  if (!Number.isInteger(resultsPerReport) || resultsPerReport < 1)
    throw new RangeError(
      `resultsPerReport must be a positive integer, got ${String(resultsPerReport)}`,
    );
  const byScope = new Map<string, ReportResult[]>();
  for (const r of results) {
    const key = scopeKey(r.reportNamespace);
    const list = byScope.get(key);
    if (list === undefined) byScope.set(key, [r]);
    else list.push(r);
  }
  const out: DesiredReport[] = [];
  for (const scope of [...byScope.keys()].sort(compareText)) {
    const namespace = scope === '' ? undefined : scope;
    const sorted = [...(byScope.get(scope) ?? [])].sort(compareResults);
    const scopePartial = partial?.get(scope);
    const note = scopePartial === undefined ? undefined : partialNote(scopePartial);
    for (let page = 1; (page - 1) * resultsPerReport < sorted.length; page++) {
      const chunk = sorted.slice((page - 1) * resultsPerReport, page * resultsPerReport);
      const name = reportName(page);
      out.push({ namespace, name, manifest: reportManifest(api, namespace, name, chunk, note) });
    }
  }
  return out;
}
