import { isStatus, type KubeClient } from '../kube/kube-client.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../engine/json.js';
import { mapBounded } from '../audit/run/bounded.js';
import { reportsPath, type ReportApi } from './report-api.js';
import {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  PARTIAL_ANNOTATION,
  type DesiredReport,
} from './report-build.js';
import { scopeKey } from './report-quota.js';

/** What one sync did. */
export interface ReportSyncResult {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  /** Reports no longer desired but kept (marked partial), because their scope reached a bound. */
  kept: number;
  /** Writes that failed (`<kind> <ns>/<name>: reason`); the next run tries again. */
  readonly failed: string[];
}

interface StoredReport {
  readonly namespace: string | undefined;
  readonly name: string;
  readonly object: JsonObject;
}

const WRITE_CONCURRENCY = 4;
const LIST_PAGE = 100;

/** JSON with object keys sorted: two values print alike exactly when they are equal. */
export function canonicalJson(value: JsonValue | undefined): string {
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

function labelsOf(object: JsonObject): JsonObject {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return isJsonObject(metadata.labels) ? metadata.labels : {};
}

function annotationsOf(object: JsonObject): JsonObject {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return isJsonObject(metadata.annotations) ? metadata.annotations : {};
}

/** The stored report's metadata with PARTIAL_ANNOTATION set to `note` (removed when undefined). */
function withNote(stored: JsonObject, note: string | undefined): JsonObject {
  const annotations: JsonObject = Object.fromEntries(
    Object.entries(annotationsOf(stored)).filter(([k]) => k !== PARTIAL_ANNOTATION),
  );
  if (note !== undefined) annotations[PARTIAL_ANNOTATION] = note;
  const metadata = isJsonObject(stored.metadata) ? { ...stored.metadata } : {};
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  else metadata.annotations = annotations;
  return metadata;
}

/**
 * Whether the stored report already says what the desired one says: every top-level field the
 * desired manifest sets (besides apiVersion, kind and metadata) is equal, and so are the labels
 * it sets. Fields others add (an annotation, a label of their own) do not count.
 */
export function sameContent(stored: JsonObject, desired: JsonObject): boolean {
  for (const key of Object.keys(desired)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata') continue;
    if (canonicalJson(stored[key]) !== canonicalJson(desired[key])) return false;
  }
  if (annotationsOf(stored)[PARTIAL_ANNOTATION] !== annotationsOf(desired)[PARTIAL_ANNOTATION])
    return false;
  const storedLabels = labelsOf(stored);
  const desiredLabels = labelsOf(desired);
  return Object.keys(desiredLabels).every((k) => storedLabels[k] === desiredLabels[k]);
}

function key(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

async function listOwned(client: KubeClient, api: ReportApi): Promise<StoredReport[]> {
  const out: StoredReport[] = [];
  for (const cluster of [false, true]) {
    let token: string | undefined;
    do {
      const list = await client.request({
        method: 'GET',
        path: reportsPath(api, cluster),
        query: {
          labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`,
          limit: LIST_PAGE,
          continue: token,
        },
      });
      for (const item of Array.isArray(list.items) ? list.items : []) {
        if (!isJsonObject(item) || !isJsonObject(item.metadata)) continue;
        const { name, namespace } = item.metadata;
        if (typeof name !== 'string') continue;
        out.push({
          namespace: cluster || typeof namespace !== 'string' ? undefined : namespace,
          name,
          object: item,
        });
      }
      const meta = isJsonObject(list.metadata) ? list.metadata : {};
      token = typeof meta.continue === 'string' && meta.continue !== '' ? meta.continue : undefined;
    } while (token !== undefined);
  }
  return out;
}

function objectPath(api: ReportApi, namespace: string | undefined, name: string): string {
  return `${reportsPath(api, namespace === undefined, namespace)}/${encodeURIComponent(name)}`;
}

function label(api: ReportApi, namespace: string | undefined, name: string): string {
  return namespace === undefined
    ? `${api.clusterKind} ${name}`
    : `${api.kind} ${namespace}/${name}`;
}

/**
 * Makes kubemod-ts's reports in `api` what `desired` says: creates the missing ones, updates
 * (PUT, with the stored resourceVersion) those whose content differs, leaves equal ones alone
 * (no write at all), and deletes its own reports (by label) that are no longer desired, except
 * in the scopes of `partial` (scopeKey → PARTIAL_ANNOTATION text): a scope that reached a bound
 * keeps its reports, marked partial, since the results it lacks are not known to be gone.
 * Reports of kubemod-ts in the `stale` APIs (one the cluster served before) are deleted. A write
 * that fails is reported in `failed`; listing failing throws.
 */
export async function syncReports(
  client: KubeClient,
  api: ReportApi,
  desired: readonly DesiredReport[],
  stale: readonly ReportApi[] = [],
  partial: ReadonlyMap<string, string> = new Map(),
): Promise<ReportSyncResult> {
  const result: ReportSyncResult = {
    created: 0,
    updated: 0,
    unchanged: 0,
    deleted: 0,
    kept: 0,
    failed: [],
  };
  const stored = new Map((await listOwned(client, api)).map((r) => [key(r.namespace, r.name), r]));
  const wanted = new Set(desired.map((d) => key(d.namespace, d.name)));
  const attempt = async (what: string, write: () => Promise<void>): Promise<void> => {
    try {
      await write();
    } catch (err) {
      if (isStatus(err, 404) && what.startsWith('delete')) return;
      result.failed.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  await mapBounded(desired, WRITE_CONCURRENCY, async (report) => {
    const current = stored.get(key(report.namespace, report.name));
    const what = label(api, report.namespace, report.name);
    if (current === undefined) {
      await attempt(`create ${what}`, async () => {
        await client.request({
          method: 'POST',
          path: reportsPath(api, report.namespace === undefined, report.namespace),
          body: report.manifest,
          discardResponse: true,
        });
        result.created++;
      });
      return;
    }
    if (sameContent(current.object, report.manifest)) {
      result.unchanged++;
      return;
    }
    const desiredNote = annotationsOf(report.manifest)[PARTIAL_ANNOTATION];
    const storedMeta = withNote(
      current.object,
      typeof desiredNote === 'string' ? desiredNote : undefined,
    );
    const desiredMeta = isJsonObject(report.manifest.metadata) ? report.manifest.metadata : {};
    const body: JsonObject = {
      ...report.manifest,
      metadata: {
        ...storedMeta,
        labels: { ...labelsOf(current.object), ...labelsOf(report.manifest) },
        ...(desiredMeta.namespace === undefined ? {} : { namespace: desiredMeta.namespace }),
        name: report.name,
      },
    };
    await attempt(`update ${what}`, async () => {
      await client.request({
        method: 'PUT',
        path: objectPath(api, report.namespace, report.name),
        body,
        discardResponse: true,
      });
      result.updated++;
    });
  });
  const unwanted = [...stored.values()].filter((r) => !wanted.has(key(r.namespace, r.name)));
  const obsolete = unwanted.filter((r) => !partial.has(scopeKey(r.namespace)));
  // A partial scope's reports stay, marked partial (rewritten only when the mark changes).
  await mapBounded(
    unwanted.filter((r) => partial.has(scopeKey(r.namespace))),
    WRITE_CONCURRENCY,
    async (report) => {
      const note = partial.get(scopeKey(report.namespace));
      result.kept++;
      if (annotationsOf(report.object)[PARTIAL_ANNOTATION] === note) return;
      await attempt(`mark partial ${label(api, report.namespace, report.name)}`, async () => {
        await client.request({
          method: 'PUT',
          path: objectPath(api, report.namespace, report.name),
          body: { ...report.object, metadata: withNote(report.object, note) },
          discardResponse: true,
        });
      });
    },
  );
  const deletions = [
    ...obsolete.map((r) => ({ api, report: r })),
    ...(
      await Promise.all(
        stale.map(async (s) => (await listOwned(client, s)).map((r) => ({ api: s, report: r }))),
      )
    ).flat(),
  ];
  await mapBounded(deletions, WRITE_CONCURRENCY, async ({ api: owner, report }) => {
    await attempt(`delete ${label(owner, report.namespace, report.name)}`, async () => {
      await client.request({
        method: 'DELETE',
        path: objectPath(owner, report.namespace, report.name),
        discardResponse: true,
      });
      result.deleted++;
    });
  });
  return result;
}
