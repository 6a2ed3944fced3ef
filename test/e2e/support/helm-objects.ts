// Reading objects out of a chart rendering and out of config/ (test/e2e/helm-render.e2e.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_FILE, parseDocuments, type BundleObject } from '../../../scripts/bundle-sources.js';
import { chartSources } from '../../../scripts/chart/chart-sources.js';
import { sourceObjects } from '../../../scripts/chart/source-objects.js';
import { objectKey } from './helm.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export interface Container {
  image: string;
  args: string[];
  env: { name: string; value?: string }[];
  resources: unknown;
}
export interface Webhook {
  name: string;
  rules: unknown[];
  namespaceSelector?: { matchExpressions: { key: string; values: string[] }[] };
}

/** The objects a config/ file (or generated chart source, e.g. the dashboard) stands for. */
export function readObjects(path: string): BundleObject[] {
  return path === BUNDLE_FILE
    ? parseDocuments(readFileSync(join(repoRoot, path), 'utf8'), path)
    : sourceObjects(repoRoot, path);
}

/** bundle.yaml, less the optional pieces a chart value turns off by default. */
export function bundleWithDefaultOptions(): BundleObject[] {
  const off = new Set(
    chartSources()
      .filter((source) => source.optional?.enabledByDefault === false)
      .flatMap((source) => readObjects(source.path).map(objectKey)),
  );
  return readObjects(BUNDLE_FILE).filter((object) => !off.has(objectKey(object)));
}

export function find(objects: readonly BundleObject[], kind: string, name?: string): BundleObject {
  const found = objects.find(
    (o) => o.kind === kind && (name === undefined || o.metadata?.name === name),
  );
  if (found === undefined) throw new Error(`no ${kind} ${name ?? ''} in the rendering`);
  return found;
}

export function container(objects: readonly BundleObject[]): Container {
  const deployment = find(objects, 'Deployment') as {
    spec?: { template: { spec: { containers: Container[] } } };
  };
  const [operator] = deployment.spec?.template.spec.containers ?? [];
  if (operator === undefined) throw new Error('no container');
  return operator;
}

export function webhook(objects: readonly BundleObject[], name: string): Webhook {
  const config = find(objects, 'MutatingWebhookConfiguration') as { webhooks?: Webhook[] };
  const hook = config.webhooks?.find((w) => w.name === name);
  if (hook === undefined) throw new Error(`no webhook ${name}`);
  return hook;
}

export const kinds = (objects: readonly BundleObject[]): string[] => objects.map(objectKey);
