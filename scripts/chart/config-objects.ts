// Finds the objects and fields of config/ that the chart parameterises, failing with the file, the
// object and the field when config/ no longer has the shape the chart generator relies on.
import type { BundleObject } from '../bundle-sources.js';
import type { ConfigFacts } from './chart-values.js';

export const DRAGNET_WEBHOOK = 'dragnet.kubemod.io';
export const OPERATOR_CONTAINER = 'operator';
export const LOG_LEVEL_ENV = 'KUBEMOD_LOG_LEVEL';

export type Mapping = Record<string, unknown>;

/** A config/ object with the file it came from. */
export interface SourcedObject {
  readonly source: string;
  readonly object: BundleObject;
}

export function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(found: SourcedObject): string {
  return `${found.source}: ${String(found.object.kind)} ${String(found.object.metadata?.name)}`;
}

/** The mapping at `path` under `root`; throws naming the object and the field otherwise. */
export function mappingAt(found: SourcedObject, root: unknown, path: readonly string[]): Mapping {
  let node: unknown = root;
  for (const key of path) {
    node = isMapping(node) ? node[key] : undefined;
  }
  if (!isMapping(node)) {
    throw new Error(`${describe(found)}: ${path.join('.')} is not a mapping`);
  }
  return node;
}

function listAt(found: SourcedObject, root: unknown, path: readonly string[]): Mapping[] {
  const parent = mappingAt(found, root, path.slice(0, -1));
  const list = parent[path[path.length - 1] ?? ''];
  if (!Array.isArray(list) || !list.every(isMapping)) {
    throw new Error(`${describe(found)}: ${path.join('.')} is not a list of mappings`);
  }
  return list;
}

export function findObject(objects: readonly SourcedObject[], kind: string): SourcedObject {
  const matches = objects.filter((found) => found.object.kind === kind);
  if (matches.length !== 1) {
    throw new Error(`config/: expected one ${kind}, found ${String(matches.length)}`);
  }
  return matches[0] as SourcedObject;
}

/** The operator container of the Deployment. */
export function operatorContainer(deployment: SourcedObject): Mapping {
  const containers = listAt(deployment, deployment.object, [
    'spec',
    'template',
    'spec',
    'containers',
  ]);
  const container = containers.find((c) => c.name === OPERATOR_CONTAINER);
  if (container === undefined) {
    throw new Error(`${describe(deployment)}: no container named ${OPERATOR_CONTAINER}`);
  }
  return container;
}

/** The container's env entry `name`. */
export function envEntry(deployment: SourcedObject, container: Mapping, name: string): Mapping {
  const entry = listAt(deployment, container, ['env']).find((e) => e.name === name);
  if (entry === undefined || typeof entry.value !== 'string') {
    throw new Error(`${describe(deployment)}: container env has no ${name} with a value`);
  }
  return entry;
}

export function webhooks(found: SourcedObject): Mapping[] {
  return listAt(found, found.object, ['webhooks']);
}

export function dragnetWebhook(mutating: SourcedObject): Mapping {
  const hook = webhooks(mutating).find((w) => w.name === DRAGNET_WEBHOOK);
  if (hook === undefined) throw new Error(`${describe(mutating)}: no webhook ${DRAGNET_WEBHOOK}`);
  return hook;
}

/** The defaults of the chart's values, read from the config/ objects. */
export function configFacts(objects: readonly SourcedObject[]): ConfigFacts {
  const deployment = findObject(objects, 'Deployment');
  const container = operatorContainer(deployment);
  const image = container.image;
  const match = typeof image === 'string' ? /^(.+\/[^/:@]+):([^:@/]+)$/.exec(image) : null;
  if (match === null) {
    throw new Error(
      `${describe(deployment)}: image must be <repository>:<tag>, got ${String(image)}`,
    );
  }
  const replicas = mappingAt(deployment, deployment.object, ['spec']).replicas;
  if (typeof replicas !== 'number')
    throw new Error(`${describe(deployment)}: spec.replicas is not a number`);
  const rules = dragnetWebhook(findObject(objects, 'MutatingWebhookConfiguration')).rules;
  return {
    imageRepository: match[1] ?? '',
    imageTag: match[2] ?? '',
    pullPolicy:
      typeof container.imagePullPolicy === 'string' ? container.imagePullPolicy : 'IfNotPresent',
    replicas,
    resources: mappingAt(deployment, container, ['resources']),
    logLevel: String(envEntry(deployment, container, LOG_LEVEL_ENV).value),
    targetRules: rules,
  };
}
