// The Kubernetes objects one chart source stands for. A YAML file under config/ holds its objects;
// the Grafana dashboard (config/monitoring/grafana-dashboard.json) stands for the ConfigMap that
// config/monitoring/kustomization.yaml generates from it, so the chart installs exactly what
// `kubectl apply -k config/monitoring` does.
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { load } from 'js-yaml';
import { parseDocuments, type BundleObject } from '../bundle-sources.js';
import { isMapping } from './config-objects.js';

/** The kustomization next to a generated file, whose configMapGenerator names that file. */
const KUSTOMIZATION = 'kustomization.yaml';

function configMapFor(repoRoot: string, path: string): BundleObject {
  const where = join(dirname(path), KUSTOMIZATION);
  const kustomization: unknown = load(readFileSync(join(repoRoot, where), 'utf8'));
  const generators = isMapping(kustomization) ? kustomization.configMapGenerator : undefined;
  const file = basename(path);
  for (const generator of Array.isArray(generators) ? generators : []) {
    if (!isMapping(generator) || !Array.isArray(generator.files)) continue;
    const entry = generator.files.find(
      (f): f is string => typeof f === 'string' && (f === file || f.endsWith(`=${file}`)),
    );
    if (entry === undefined) continue;
    const options = isMapping(generator.options) ? generator.options : {};
    if (options.disableNameSuffixHash !== true || typeof generator.name !== 'string') {
      throw new Error(`${where}: the generator of ${file} needs a name and disableNameSuffixHash`);
    }
    const namespace = isMapping(kustomization) ? kustomization.namespace : undefined;
    if (typeof namespace !== 'string') throw new Error(`${where}: no namespace`);
    const key = entry.includes('=') ? entry.slice(0, entry.indexOf('=')) : file;
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: generator.name,
        namespace,
        ...(isMapping(options.labels) ? { labels: options.labels } : {}),
      },
      data: { [key]: readFileSync(join(repoRoot, path), 'utf8') },
    };
  }
  throw new Error(`${where}: no configMapGenerator takes ${file}`);
}

/** The objects of the chart source `path` (relative to `repoRoot`). */
export function sourceObjects(repoRoot: string, path: string): BundleObject[] {
  if (path.endsWith('.json')) return [configMapFor(repoRoot, path)];
  const objects = parseDocuments(readFileSync(join(repoRoot, path), 'utf8'), path);
  if (objects.length === 0) throw new Error(`${path}: no Kubernetes object in the file`);
  return objects;
}
