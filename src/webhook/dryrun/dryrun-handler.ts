import { describeError, KubemodError } from '../../errors/catalog.js';
import {
  evaluate,
  type EvaluationRequest,
  type EvaluationResult,
  type RuleFailure,
  type SyntheticRefLookups,
  type SyntheticRefs,
} from '../../engine/evaluate.js';
import { explainEvaluation, type ExplainDocument } from '../../engine/explain/index.js';
import { isJsonObject, type JsonPatchOperation, type JsonValue } from '../../engine/json.js';
import type { WebhookLimits } from '../webhook-limits.js';
import { dryRunDiff, dryRunYaml } from './dryrun-diff.js';
import {
  mergeSyntheticRefs,
  namesToLookUp,
  prepareDryRun,
  type PreparedDryRun,
  type PreparedResource,
} from './dryrun-prepare.js';
import { newObjectProblems } from '../../engine/object-checks.js';
import { httpStatusOf } from '../http/errors.js';
import { lookupSyntheticRefs, NODE_NAME_ANNOTATION } from '../admission/synthetic-refs.js';

export { prepareDryRun, type PreparedDryRun } from './dryrun-prepare.js';

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
  /**
   * Present when the rules made the object one the API server would refuse (a label value
   * `<no value>`, a label turned into a number, …; see objectProblems): `<field>: <reason>`.
   */
  readonly objectProblems?: string[];
  /**
   * Present when a manifest the body gave is not used, as the webhook would not inject it (a
   * node for an object that is not a Pod annotated ref.kubemod.io/nodename, a namespace for a
   * cluster-scoped object): `syntheticRefs.<member> is not used: <why>`.
   */
  readonly notes?: string[];
  /** The patched object as YAML (keys sorted, as in the diff); only for a resource sent as YAML. */
  readonly patchedYaml?: string;
  /** With `?explain=true` only: why each rule did or did not apply (docs/explain.md). */
  readonly explain?: ExplainDocument;
}

export interface DryRunOptions {
  /** Add the explain document to the answer (`?explain=true`). The result is the same. */
  readonly explain?: boolean | undefined;
}

/** What a dry run needs besides its body: the webhook's limits, cluster namespace and clock. */
export interface DryRunDependencies {
  readonly clusterNamespace: string;
  /** Milliseconds; defaults to performance.now-based monotonic time. */
  readonly clock?: (() => number) | undefined;
  readonly limits: Pick<WebhookLimits, 'template' | 'work'>;
}

/** The result for one resource of a dry run of several: which one, and its answer. */
export type DryRunResourceResponse = {
  /** The resource's kind, name and request namespace, as far as its manifest says. */
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
} & DryRunResponse;

/**
 * The answer to a dry run of several resources (a multi-document `resourceManifest` or a List):
 * a result per resource, in order. A single resource is answered with a DryRunResponse.
 */
export interface DryRunMultiResponse {
  readonly results: DryRunResourceResponse[];
}

export type DryRunAnswer = DryRunResponse | DryRunMultiResponse;

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
  deps: DryRunDependencies & { readonly refs: SyntheticRefLookups },
  options: DryRunOptions = {},
): DryRunAnswer {
  const prepared = prepareDryRun(body, deps);
  const given = prepared.request.syntheticRefs;
  const refs = prepared.items.map((item) =>
    mergeSyntheticRefs(
      item.refNames,
      given,
      lookupSyntheticRefs(namesToLookUp(item.refNames, given), deps.refs),
    ),
  );
  return completeDryRun(prepared, refs, deps, options);
}

/**
 * Evaluates a prepared dry run, each resource with its syntheticRefs (`refs[i]` for
 * `prepared.items[i]`), and builds the answer: one DryRunResponse for a single resource, a result
 * per resource when the body sent several.
 */
export function completeDryRun(
  prepared: PreparedDryRun,
  refs: readonly SyntheticRefs[],
  deps: DryRunDependencies,
  options: DryRunOptions = {},
): DryRunAnswer {
  const answers = prepared.items.map((item, i) =>
    completeOne(prepared, item, refs[i] ?? {}, deps, options),
  );
  if (!prepared.request.multi) {
    const [only] = answers;
    if (only !== undefined) return only;
  }
  return {
    results: answers.map((answer, i) => ({ ...identity(prepared.items[i]), ...answer })),
  };
}

function completeOne(
  prepared: PreparedDryRun,
  item: PreparedResource,
  syntheticRefs: SyntheticRefs,
  deps: DryRunDependencies,
  options: DryRunOptions,
): DryRunResponse {
  const { namespace, store } = item;
  const { request } = prepared;
  const resource = item.resource.object;
  const evaluation: EvaluationRequest = {
    operation: request.operation,
    namespace,
    object: resource,
    syntheticRefs,
    limits: deps.limits.template,
    work: deps.limits.work,
    clock: deps.clock,
    cluster: prepared.cluster,
  };
  let explanation: ExplainDocument | undefined;
  const result = evaluateSafely(() => {
    if (options.explain !== true) return evaluate(store, evaluation);
    const explained = explainEvaluation(store, evaluation, {}, item.namespaceReason);
    explanation = explained.explanation;
    return explained.result;
  });
  const meterOptions = { work: deps.limits.work, clock: deps.clock };
  const notes = unusedRefNotes(item, request.syntheticRefs);
  const problems = result.patch.length === 0 ? [] : newObjectProblems(resource, result.patched);
  return {
    patch: result.patch,
    diff: dryRunDiff(resource, result.patched, meterOptions),
    rejections: result.rejections,
    warnings: result.warnings,
    audited: result.audited,
    failures: result.failures.map(dryRunFailure),
    ...(problems.length === 0 ? {} : { objectProblems: problems }),
    ...(notes.length === 0 ? {} : { notes }),
    ...(request.yaml ? { patchedYaml: dryRunYaml(result.patched, meterOptions) } : {}),
    ...(explanation === undefined ? {} : { explain: explanation }),
  };
}

/** Why a manifest the body gave for syntheticRefs is not used for this resource. */
function unusedRefNotes(
  item: PreparedResource,
  given: { readonly namespace?: unknown; readonly node?: unknown } | undefined,
): string[] {
  const notes: string[] = [];
  if (given?.node !== undefined && item.refNames.node === undefined) {
    notes.push(
      `syntheticRefs.node is not used: the webhook injects a node only into a Pod annotated ${NODE_NAME_ANNOTATION} with the node's name, and this object is not one`,
    );
  }
  if (given?.namespace !== undefined && item.refNames.namespace === undefined) {
    notes.push(
      'syntheticRefs.namespace is not used: the webhook injects the namespace only into namespaced objects, and this object has none',
    );
  }
  return notes;
}

/** The kind, name and request namespace of a resource, for its result among several. */
function identity(item: PreparedResource | undefined): {
  kind?: string;
  name?: string;
  namespace?: string;
} {
  if (item === undefined) return {};
  const object = item.resource.object;
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return {
    ...(typeof object.kind === 'string' ? { kind: object.kind } : {}),
    ...(typeof metadata.name === 'string' ? { name: metadata.name } : {}),
    ...(item.namespace === undefined ? {} : { namespace: item.namespace }),
  };
}

/** Whether an answer is the result of several resources. */
export function isMultiAnswer(answer: DryRunAnswer): answer is DryRunMultiResponse {
  return 'results' in answer;
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
