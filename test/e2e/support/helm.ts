import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CHART_ANNOTATIONS, CHART_LABELS } from '../../../scripts/chart/chart-helpers.js';
import { parseDocuments, type BundleObject } from '../../../scripts/bundle-sources.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const CHART_PATH = `${repoRoot}charts/kubemod-ts`;

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program; resolves its exit code and output (never rejects on a non-zero exit). */
export function run(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  timeoutMs = 120_000,
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr: error !== null && stderr === '' ? error.message : stderr });
      },
    );
  });
}

/**
 * The Helm binary from scripts/build-helm.sh (cached after the first build). Fails, naming the
 * script and its output, when it cannot be built: the chart tests never skip for want of Helm.
 */
export async function buildHelm(): Promise<string> {
  const result = await run('bash', [`${repoRoot}scripts/build-helm.sh`], {}, 30 * 60_000);
  const path = result.stdout.trim().split('\n').pop() ?? '';
  if (result.code !== 0 || path === '') {
    throw new Error(`scripts/build-helm.sh failed (exit ${String(result.code)}): ${result.stderr}`);
  }
  return path;
}

/** `--set`/`--set-json` arguments for a flat map of value paths. */
export function setArgs(values: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(values).flatMap(([path, value]) =>
    typeof value === 'string'
      ? ['--set-string', `${path}=${value}`]
      : ['--set-json', `${path}=${JSON.stringify(value)}`],
  );
}

/** `helm template` of the chart into `namespace`; throws with Helm's message on failure. */
export async function renderChart(
  helm: string,
  values: Readonly<Record<string, unknown>> = {},
  namespace = 'kubemod-system',
): Promise<BundleObject[]> {
  const result = await run(helm, [
    'template',
    'kubemod-ts',
    CHART_PATH,
    '--namespace',
    namespace,
    ...setArgs(values),
  ]);
  if (result.code !== 0) throw new Error(result.stderr);
  return parseDocuments(result.stdout, 'helm template');
}

/** The object without what only the chart adds (Helm's labels, the CRD's keep policy). */
export function withoutChartMetadata(object: BundleObject): BundleObject {
  const copy = structuredClone(object) as BundleObject & {
    metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  };
  for (const [field, keys] of [
    ['labels', CHART_LABELS],
    ['annotations', CHART_ANNOTATIONS],
  ] as const) {
    const map = copy.metadata[field];
    if (map === undefined) continue;
    for (const key of keys) Reflect.deleteProperty(map, key);
    if (Object.keys(map).length === 0) Reflect.deleteProperty(copy.metadata, field);
  }
  return copy;
}

export function objectKey(object: BundleObject): string {
  const namespace = object.metadata?.namespace;
  return `${String(object.kind)}/${typeof namespace === 'string' ? `${namespace}/` : ''}${String(object.metadata?.name)}`;
}

/** Objects sorted by kind/namespace/name, so two renderings compare regardless of order. */
export function sortedObjects(objects: readonly BundleObject[]): BundleObject[] {
  return [...objects].sort((a, b) => objectKey(a).localeCompare(objectKey(b)));
}
