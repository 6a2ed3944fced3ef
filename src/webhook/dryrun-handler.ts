import { describeError, KubemodError } from '../errors/catalog.js';
import {
  evaluate,
  type EvaluationRequest,
  type EvaluationResult,
  type RuleFailure,
  type SyntheticRefs,
} from '../engine/evaluate.js';
import { explainEvaluation, type ExplainDocument } from '../engine/explain/index.js';
import {
  isJsonObject,
  type JsonObject,
  type JsonPatchOperation,
  type JsonValue,
} from '../engine/json.js';
import { RuleStore } from '../engine/store.js';
import { checkModRule, describeInvalidModRule } from '../rules/compile-modrule.js';
import type { WebhookDependencies } from './dependencies.js';
import { dryRunDiff, dryRunYaml } from './dryrun-diff.js';
import { readDryRunRequest, type DryRunRequest } from './dryrun-request.js';
import { httpStatusOf } from './errors.js';
import {
  lookupSyntheticRefs,
  syntheticRefNames,
  type SyntheticRefNames,
} from './synthetic-refs.js';

/** A rule that failed while evaluating (template error, work limit, …) and was skipped. */
export interface DryRunFailure {
  /** `<namespace>/<name>` */
  readonly rule: string;
  /** The ModRule field that failed (`spec` when no finer field is known). */
  readonly field: string;
  /** Catalog code, e.g. KM5002 for a work limit. */
  readonly code: string;
  readonly message: string;
  /** The rule's failure policy: with Fail, the failure refuses the request (see `rejections`). */
  readonly failurePolicy: 'Ignore' | 'Fail';
}

/**
 * Body of a `PUT /v1/dryrun` answer: KubeMod web app format (`patch`, `diff`, `rejections`) plus
 * `warnings` and `audited` (Reject rules in Warn and Audit mode) and `failures`, the rules that
 * failed (skipped, or refusing the request when their failure policy is Fail).
 */
export interface DryRunResponse {
  readonly patch: JsonPatchOperation[];
  readonly diff: string;
  /**
   * What refuses the request: matching Reject rules in Enforce mode, then rules with failure
   * policy Fail that could not be evaluated (`<ns>/<name>: "could not be evaluated …"`).
   */
  readonly rejections: string[];
  /** Matching Reject rules in Warn mode (`<ns>/<name>: "<message>"`): admitted with these warnings. */
  readonly warnings: string[];
  /** Matching Reject rules in Audit mode, same format: admitted silently, counted. */
  readonly audited: string[];
  readonly failures: DryRunFailure[];
  /** The patched object as YAML (keys sorted, as in the diff); only for a resource sent as YAML. */
  readonly patchedYaml?: string;
  /** With `?explain=true` only: why each rule did or did not apply (docs/explain.md). */
  readonly explain?: ExplainDocument;
}

export interface DryRunOptions {
  /** Add the explain document to the answer (`?explain=true`). The result is the same. */
  readonly explain?: boolean | undefined;
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

/** What a dry run needs besides its body: the webhook's limits, cluster namespace and clock. */
export type DryRunDependencies = Pick<WebhookDependencies, 'clusterNamespace' | 'clock'> & {
  readonly limits: Pick<WebhookDependencies['limits'], 'template' | 'work'>;
};

/** A dry-run body read and its ModRules compiled, before the syntheticRefs are looked up. */
export interface PreparedDryRun {
  readonly request: DryRunRequest;
  /** The namespace the resource is evaluated in (undefined for a cluster-scoped kind). */
  readonly namespace: string | undefined;
  readonly store: RuleStore;
  /** The Namespace and Node manifests the evaluation's syntheticRefs are made of. */
  readonly refNames: SyntheticRefNames;
}

/**
 * `{resourceManifest, modRules}` → `{patch, diff, rejections, failures}` (see readDryRunRequest
 * for the body, which may also carry YAML text, a namespace and an operation). The rules go into
 * a fresh private store (a rule without a namespace goes to the request's namespace: the body's
 * `namespace`, else the resource's, else `default`). Throws INPUT_INVALID listing every invalid
 * ModRule with its field errors. Rules that fail while evaluating (a template error, a work
 * limit) are skipped and listed in `failures`; they are not counted in the metrics (their names
 * come from the request). When the resource came as YAML text the answer adds `patchedYaml`.
 * The webhook server runs the same two steps (prepareDryRun, completeDryRun) in a worker thread.
 */
export function handleDryRun(
  body: JsonValue,
  deps: DryRunDependencies & Pick<WebhookDependencies, 'refs'>,
  options: DryRunOptions = {},
): DryRunResponse {
  const prepared = prepareDryRun(body, deps);
  return completeDryRun(prepared, lookupSyntheticRefs(prepared.refNames, deps.refs), deps, options);
}

/** Reads a dry-run body and compiles its ModRules; throws INPUT_INVALID as handleDryRun does. */
export function prepareDryRun(
  body: JsonValue,
  deps: Pick<DryRunDependencies, 'clusterNamespace'>,
): PreparedDryRun {
  const request = readDryRunRequest(body);
  const { resource, modRules } = request;
  const namespace = request.namespace ?? requestNamespace(resource);
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
  return { request, namespace, store, refNames: syntheticRefNames(resource, namespace) };
}

/** Evaluates a prepared dry run with its syntheticRefs and builds the answer. */
export function completeDryRun(
  prepared: PreparedDryRun,
  syntheticRefs: SyntheticRefs,
  deps: DryRunDependencies,
  options: DryRunOptions = {},
): DryRunResponse {
  const { request, namespace, store } = prepared;
  const { resource, operation } = request;
  const evaluation: EvaluationRequest = {
    operation,
    namespace,
    object: resource,
    syntheticRefs,
    limits: deps.limits.template,
    work: deps.limits.work,
    clock: deps.clock,
  };
  let explanation: ExplainDocument | undefined;
  const result = evaluateSafely(() => {
    if (options.explain !== true) return evaluate(store, evaluation);
    const explained = explainEvaluation(store, evaluation);
    explanation = explained.explanation;
    return explained.result;
  });
  const meterOptions = { work: deps.limits.work, clock: deps.clock };
  return {
    patch: result.patch,
    diff: dryRunDiff(resource, result.patched, meterOptions),
    rejections: result.rejections,
    warnings: result.warnings,
    audited: result.audited,
    failures: result.failures.map(dryRunFailure),
    ...(request.yaml ? { patchedYaml: dryRunYaml(result.patched, meterOptions) } : {}),
    ...(explanation === undefined ? {} : { explain: explanation }),
  };
}

/**
 * The `explain` query parameter of `PUT /v1/dryrun`: absent, `false` or `0` is off; `true`, `1`
 * or empty (`?explain`) is on. Anything else is an INPUT_INVALID naming the parameter.
 */
export function explainParameter(value: unknown): boolean {
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1' || value === '') return true;
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : 'a repeated value';
  throw new KubemodError(
    'INPUT_INVALID',
    `query parameter explain must be true or false, got ${shown}`,
  );
}

/**
 * `evaluate`, whose failures are all answered as bad input: a catalogued error with a 4xx status
 * (the request's work or depth limit) as it is, anything else as INPUT_INVALID naming it.
 */
function evaluateSafely(run: () => EvaluationResult): EvaluationResult {
  try {
    return run();
  } catch (err) {
    if (err instanceof KubemodError && httpStatusOf(err) < 500) throw err;
    const code = err instanceof KubemodError ? ` [${err.code}]` : '';
    throw new KubemodError(
      'INPUT_INVALID',
      `the resource cannot be evaluated${code}: ${describeError(err)}`,
      undefined,
      { cause: err },
    );
  }
}

function dryRunFailure(failure: RuleFailure): DryRunFailure {
  return {
    rule: failure.rule,
    field: failure.field ?? 'spec',
    code: failure.code,
    message: failure.message,
    failurePolicy: failure.failurePolicy,
  };
}

function requestNamespace(resource: JsonObject): string | undefined {
  const metadata = resource.metadata;
  const namespace = isJsonObject(metadata) ? metadata.namespace : undefined;
  if (typeof namespace === 'string' && namespace !== '') return namespace;
  const kind = resource.kind;
  return typeof kind === 'string' && CLUSTER_SCOPED_KINDS.has(kind) ? undefined : 'default';
}

function invalid(message: string): KubemodError {
  return new KubemodError('INPUT_INVALID', message);
}
