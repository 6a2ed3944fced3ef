import { KubemodError } from '../errors/catalog.js';
import { evaluate } from '../engine/evaluate.js';
import {
  isJsonObject,
  type JsonObject,
  type JsonPatchOperation,
  type JsonValue,
} from '../engine/json.js';
import { unifiedYamlDiff } from '../engine/patch/index.js';
import { RuleStore } from '../engine/store.js';
import { checkModRule, describeInvalidModRule } from '../rules/compile-modrule.js';
import type { WebhookDependencies } from './dependencies.js';
import { syntheticRefsFor } from './synthetic-refs.js';

/** Body of a `PUT /v1/dryrun` answer (KubeMod web app format). */
export interface DryRunResponse {
  readonly patch: JsonPatchOperation[];
  readonly diff: string;
  readonly rejections: string[];
}

/**
 * Kinds evaluated as cluster-scoped when the manifest has no namespace. Any other kind without
 * `metadata.namespace` is evaluated in `default`, as kubectl would create it.
 */
const CLUSTER_SCOPED_KINDS: ReadonlySet<string> = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'ClusterRole',
  'ClusterRoleBinding',
  'StorageClass',
  'CustomResourceDefinition',
  'PriorityClass',
  'IngressClass',
  'RuntimeClass',
  'CSIDriver',
  'CSINode',
  'VolumeAttachment',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
]);

/**
 * `{resourceManifest, modRules}` → `{patch, diff, rejections}`. The rules go into a fresh private
 * store (a rule without a namespace goes to the resource's namespace, or `default`); the
 * operation is CREATE. Throws INPUT_INVALID listing every invalid ModRule with its field errors.
 */
export function handleDryRun(body: JsonValue, deps: WebhookDependencies): DryRunResponse {
  if (!isJsonObject(body))
    throw invalid('the body must be a JSON object {"resourceManifest": {...}, "modRules": [...]}');
  const resource = body.resourceManifest;
  if (!isJsonObject(resource))
    throw invalid('resourceManifest must be an object (the Kubernetes manifest to evaluate)');
  const modRules = body.modRules ?? [];
  if (!Array.isArray(modRules)) throw invalid('modRules must be an array of ModRule manifests');
  const namespace = requestNamespace(resource);
  const store = new RuleStore({ clusterNamespace: deps.clusterNamespace });
  const problems: string[] = [];
  modRules.forEach((raw, index) => {
    const check = checkModRule(raw, {
      clusterNamespace: deps.clusterNamespace,
      defaultNamespace: namespace ?? 'default',
    });
    if (!check.ok) {
      problems.push(
        `modRules[${String(index)}]: ${describeInvalidModRule(check.key, check.errors)}`,
      );
      return;
    }
    if (store.get(check.rule.namespace, check.rule.name) !== undefined) {
      problems.push(`modRules[${String(index)}]: ModRule ${check.rule.key} is defined twice`);
      return;
    }
    store.put(check.rule);
  });
  if (problems.length > 0) throw invalid(problems.join('\n'));
  const result = evaluate(store, {
    operation: 'CREATE',
    namespace,
    object: resource,
    syntheticRefs: syntheticRefsFor(resource, namespace, deps.refs),
    limits: deps.limits.template,
  });
  return {
    patch: result.patch,
    diff: unifiedYamlDiff(resource, result.patched, manifestName(resource)),
    rejections: result.rejections,
  };
}

function requestNamespace(resource: JsonObject): string | undefined {
  const metadata = resource.metadata;
  const namespace = isJsonObject(metadata) ? metadata.namespace : undefined;
  if (typeof namespace === 'string' && namespace !== '') return namespace;
  const kind = resource.kind;
  return typeof kind === 'string' && CLUSTER_SCOPED_KINDS.has(kind) ? undefined : 'default';
}

function manifestName(resource: JsonObject): string {
  const metadata = resource.metadata;
  const name =
    isJsonObject(metadata) && typeof metadata.name === 'string' ? metadata.name : 'resource';
  return typeof resource.kind === 'string' ? `${resource.kind}/${name}` : name;
}

function invalid(message: string): KubemodError {
  return new KubemodError('INPUT_INVALID', message);
}
