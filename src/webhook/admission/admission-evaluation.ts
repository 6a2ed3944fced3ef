import type { AdmissionOperation } from '../../api/index.js';
import { evaluate, type EvaluationRequest, type EvaluationResult } from '../../engine/evaluate.js';
import { evaluateSliced, type SliceScheduler } from '../../engine/sliced-evaluation.js';
import type { JsonObject } from '../../engine/json.js';
import { evaluateWithLookups } from '../../engine/cluster/resolve-loop.js';
import type { WebhookDependencies } from '../dependencies.js';
import { syntheticRefsFor } from './synthetic-refs.js';

/** What the dragnet webhook evaluates for one admission request. */
export interface AdmissionEvaluationInput {
  readonly operation: AdmissionOperation;
  /** The object (for DELETE, the old object). */
  readonly object: JsonObject;
  /** The kind the request names (or the object's kind). */
  readonly kind: string | undefined;
  /** The request's namespace: '' or undefined for cluster-scoped objects. */
  readonly requestNamespace: string | undefined;
}

/** The parts of the webhook's dependencies that evaluation reads. */
export interface EvaluationDependencies {
  readonly store: WebhookDependencies['store'];
  readonly refs: WebhookDependencies['refs'];
  readonly cluster?: WebhookDependencies['cluster'];
  readonly askResolver?: WebhookDependencies['askResolver'];
  readonly limits: Pick<WebhookDependencies['limits'], 'template' | 'work'>;
  readonly clock?: (() => number) | undefined;
}

/**
 * The namespace the engine sees: the request's, except for Namespace objects, which are
 * cluster-scoped even though UPDATE requests carry their name as the namespace.
 */
export function admissionNamespace(
  kind: string | undefined,
  requestNamespace: string | undefined,
): string | undefined {
  if (kind === 'Namespace' || requestNamespace === '') return undefined;
  return requestNamespace;
}

/**
 * Runs the engine on an admission request exactly as the dragnet webhook does: the namespace as
 * above, `syntheticRefs` from the in-memory lookups, the webhook's template and work limits.
 * Shared by the webhook and by the audit of existing objects, so both judge alike.
 */
export function evaluateAdmission(
  input: AdmissionEvaluationInput,
  deps: EvaluationDependencies,
): EvaluationResult {
  return evaluate(deps.store(), admissionRequest(input, deps));
}

/**
 * evaluateAdmission, spread over turns of the event loop (see evaluateSliced): the webhook's way,
 * so that one request with expensive rules does not hold up the others. Same result.
 */
export async function evaluateAdmissionSliced(
  input: AdmissionEvaluationInput,
  deps: EvaluationDependencies,
  scheduler: SliceScheduler,
  timeLeftMs?: () => number,
): Promise<EvaluationResult> {
  const request = admissionRequest(input, deps);
  // Lookups that answered pending are resolved (access reviews, provider calls) and the request
  // evaluated again; without any, this is the one evaluation.
  return evaluateWithLookups(
    async () => (await evaluateSliced(deps.store(), request, scheduler)).result,
    deps.askResolver,
    undefined,
    timeLeftMs,
  );
}

function admissionRequest(
  input: AdmissionEvaluationInput,
  deps: EvaluationDependencies,
): EvaluationRequest {
  const namespace = admissionNamespace(input.kind, input.requestNamespace);
  return {
    operation: input.operation,
    namespace,
    object: input.object,
    syntheticRefs: syntheticRefsFor(input.object, namespace, deps.refs),
    limits: deps.limits.template,
    work: deps.limits.work,
    clock: deps.clock,
    cluster: deps.cluster,
  };
}
