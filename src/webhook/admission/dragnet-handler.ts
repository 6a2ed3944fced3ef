import type { AdmissionOperation } from '../../api/index.js';
import { describeError, KubemodError } from '../../errors/catalog.js';
import type { EvaluationResult } from '../../engine/evaluate.js';
import { isJsonObject, type JsonObject } from '../../engine/json.js';
import type { RequestResult } from '../../observability/metrics.js';
import type { AdmissionRequest, AdmissionResponse } from './admission-review.js';
import type { LoopSlicing, RuleFailureContext, WebhookDependencies } from '../dependencies.js';
import { admissionNamespace, evaluateAdmissionSliced } from './admission-evaluation.js';
import { DEFAULT_RESOLVE_MS } from '../../engine/cluster/resolve-loop.js';
import { ruleWarnings } from './admission-warnings.js';
import { failClosedCandidates, notEvaluatedRefusals } from './fail-closed.js';
import { refusalText, ruleOfRejection } from '../../engine/enforcement.js';
import type { FairTurns } from '../fair-turns.js';
import { requestDeadlineMs } from './request-deadline.js';

export interface HandlerOutcome {
  readonly response: AdmissionResponse;
  readonly result: RequestResult;
}

const EVALUATED_OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'DELETE'];

/** KubeMod's rejection message. */
export function rejectionMessage(rejections: readonly string[]): string {
  return `operation rejected by the following ModRule(s): ${rejections.join(',')}`;
}

/**
 * The mutating "dragnet" webhook: runs the engine on the object (on oldObject for DELETE) and
 * answers with the patch, a 403 rejection, or a plain allow; Reject rules in Warn mode add
 * admission warnings, in Audit mode they are only counted. An internal failure allows the
 * request unchanged with a warning (the operator must never block the cluster), unless a rule
 * with failure policy Fail applies: then the request is refused, naming it. The evaluation is
 * sliced (evaluateSliced): a request whose rules work for long yields between rules, and the
 * requests that arrive meanwhile are answered in between (`slicing`, made once per server).
 * Its slices, the first included, wait their turn in `turns` (one per server), the namespaces in
 * turn; a request no rule is a candidate for does no work and takes no turn. The request's
 * deadline (requestDeadlineMs: `limits.deadlineMs`, at most 80% of the API server's timeout
 * `apiTimeoutMs`, from its arrival) holds throughout: at a turn past it the evaluation stops, and
 * the request is treated as one that could not be evaluated.
 */
export async function handleDragnet(
  request: AdmissionRequest,
  deps: WebhookDependencies,
  waitedMs: number,
  slicing: LoopSlicing,
  turns: FairTurns,
  apiTimeoutMs?: number,
): Promise<HandlerOutcome> {
  const deadlineMs = requestDeadlineMs(deps.limits.deadlineMs, apiTimeoutMs);
  const operation = request.operation;
  if (!EVALUATED_OPERATIONS.includes(operation)) {
    return { response: { allowed: true }, result: 'skipped' };
  }
  const object = operation === 'DELETE' ? request.oldObject : request.object;
  if (object === undefined) {
    deps.logger.debug(
      { uid: request.uid, operation },
      'admission request without an object; allowed',
    );
    return { response: { allowed: true }, result: 'skipped' };
  }
  const kind = request.kind?.kind ?? (typeof object.kind === 'string' ? object.kind : undefined);
  const namespace = admissionNamespace(kind, request.namespace);
  const query = { namespace, kind, operation: operation as AdmissionOperation };
  if (waitedMs > deadlineMs) {
    const waited = `it waited ${String(Math.round(waitedMs))}ms (deadline ${String(deadlineMs)}ms)`;
    const refused = refuseNotEvaluated(query, `request not evaluated, ${waited}`, deps);
    if (refused !== undefined) return refused;
    deps.logger.warn(
      { uid: request.uid, waitedMs, deadlineMs },
      'request past its deadline; allowed unchanged',
    );
    const warning = `kubemod-ts: request not evaluated, ${waited}`;
    return { response: { allowed: true, warnings: [warning] }, result: 'error' };
  }
  const context: RuleFailureContext = {
    uid: request.uid,
    operation,
    kind,
    namespace,
    name: request.name ?? objectName(object),
  };
  const deadlineAt = slicing.clock() - waitedMs + deadlineMs;
  const queue = namespace ?? '';
  const turn = turns.taker(queue, deadlineAt);
  const scheduler = {
    sliceMs: slicing.sliceMs,
    begin: turn.begin,
    yieldToLoop: turn.next,
    end: turn.end,
  };
  try {
    const result = await evaluateAdmissionSliced(
      {
        operation: operation as AdmissionOperation,
        object,
        kind,
        requestNamespace: request.namespace,
      },
      deps,
      scheduler,
      // A resolve round (access reviews, provider calls) never outlasts the request's deadline.
      () => Math.min(DEFAULT_RESOLVE_MS, deadlineAt - slicing.clock()),
    );
    return answer(result, context, deps);
  } catch (err) {
    // A catalogued error here is the request's own budget (work or depth outside any rule) or
    // its deadline (REQUEST_DEADLINE, from `turns`).
    const known = err instanceof KubemodError;
    const refused = refuseNotEvaluated(query, describeError(err), deps);
    if (refused !== undefined) return refused;
    deps.logger[known ? 'warn' : 'error'](
      { uid: request.uid, kind, namespace, name: context.name, err },
      known
        ? 'ModRules could not be applied to this object; request allowed unchanged'
        : 'internal error while evaluating ModRules; request allowed unchanged',
    );
    const what = known ? 'ModRules not applied' : 'internal error, ModRules not applied';
    return {
      response: {
        allowed: true,
        warnings: [`kubemod-ts: ${what}: ${truncate(describeError(err), 60)}`],
      },
      result: 'error',
    };
  }
}

/** Warnings are shown to the user by kubectl; the API server truncates long ones. */
const MAX_WARNING_CHARS = 120;

/**
 * The warning naming the rules that failed and were skipped (work limit, template error, …):
 * `kubemod-ts: ModRule(s) failed and were skipped: a/x, b/y (+2 more); see the operator log`.
 */
export function failedRulesWarning(rules: readonly string[]): string {
  let text = 'kubemod-ts: ModRule(s) failed and were skipped: ';
  for (const [index, rule] of rules.entries()) {
    const next = index === 0 ? rule : `, ${rule}`;
    const left = rules.length - index - 1;
    const tail = left > 0 ? ` (+${String(left)} more)` : '';
    if (text.length + next.length + tail.length > MAX_WARNING_CHARS) {
      // The previous round left room for this tail (same count), so it always fits.
      if (index > 0) return `${text} (+${String(rules.length - index)} more)`;
      return `${truncate(text + next, MAX_WARNING_CHARS - tail.length)}${tail}`;
    }
    text += next;
  }
  return text;
}

/**
 * A request that could not be evaluated (past its deadline, or failed as a whole) is refused when
 * a rule with failure policy Fail applies to it, naming those rules and the reason; undefined
 * otherwise (the request is then allowed unchanged, as the webhook's own failurePolicy would).
 */
function refuseNotEvaluated(
  query: Parameters<typeof failClosedCandidates>[1],
  reason: string,
  deps: WebhookDependencies,
): HandlerOutcome | undefined {
  let rules: string[];
  try {
    rules = failClosedCandidates(deps.store(), query);
  } catch {
    // The rules cannot even be looked up (an internal error): allowed, as before.
    return undefined;
  }
  if (rules.length === 0) return undefined;
  for (const rule of rules) deps.metrics.ruleResult(rule, 'refused');
  deps.logger.warn(
    { rules, kind: query.kind, namespace: query.namespace, reason },
    'request could not be evaluated; refused by ModRule(s) with failure policy Fail',
  );
  const message = rejectionMessage(notEvaluatedRefusals(rules, reason));
  return { response: { allowed: false, status: { code: 403, message } }, result: 'refused' };
}

function answer(
  result: EvaluationResult,
  context: RuleFailureContext,
  deps: WebhookDependencies,
): HandlerOutcome {
  const outcome = decide(result, context, deps);
  const warnings = [...(outcome.response.warnings ?? []), ...ruleWarnings(result.warnings)];
  // Rules whose failure refused the request were not skipped: the refusal names them.
  const refusing = new Set(result.rejections);
  const skipped = result.failures.filter((f) => !refusing.has(refusalText(f))).map((f) => f.rule);
  if (skipped.length > 0) warnings.push(failedRulesWarning([...new Set(skipped)]));
  if (warnings.length === 0) return outcome;
  return { ...outcome, response: { ...outcome.response, warnings } };
}

function decide(
  result: EvaluationResult,
  context: RuleFailureContext,
  deps: WebhookDependencies,
): HandlerOutcome {
  const { logger, metrics } = deps;
  const rejections = new Set(result.rejections);
  const refusals = new Set<string>();
  for (const failure of result.failures) {
    const refusal = refusalText(failure);
    const failClosed = failure.failurePolicy === 'Fail' && rejections.has(refusal);
    if (failClosed) refusals.add(refusal);
    metrics.ruleFailed(failure.rule, failure.code);
    metrics.ruleResult(failure.rule, failClosed ? 'refused' : 'failed');
    logger.warn(
      {
        uid: context.uid,
        rule: failure.rule,
        field: failure.field,
        code: failure.code,
        object: objectRef(context),
      },
      failClosed
        ? `ModRule ${failure.rule} failed; its failure policy is Fail, the request is refused: ${failure.message}`
        : `ModRule ${failure.rule} failed and was skipped: ${failure.message}`,
    );
    try {
      deps.onRuleFailure?.(failure, context);
    } catch (err) {
      logger.error({ err, rule: failure.rule }, 'onRuleFailure hook failed');
    }
  }
  for (const warning of result.warnings) metrics.ruleResult(ruleOfRejection(warning), 'warned');
  for (const audit of result.audited) metrics.ruleResult(ruleOfRejection(audit), 'audited');
  if (result.warnings.length > 0 || result.audited.length > 0) {
    logger.info(
      {
        uid: context.uid,
        object: objectRef(context),
        warnings: result.warnings,
        audited: result.audited,
      },
      'Reject rules in Warn or Audit mode matched; not enforced',
    );
  }
  if (result.rejections.length > 0) {
    let enforced = 0;
    for (const rejection of result.rejections) {
      // A fail-closed refusal was counted with its failure above.
      if (refusals.has(rejection)) continue;
      enforced += 1;
      metrics.ruleRejected(ruleOfRejection(rejection));
      metrics.ruleResult(ruleOfRejection(rejection), 'rejected');
    }
    const message = rejectionMessage(result.rejections);
    logger.info(
      { uid: context.uid, object: objectRef(context), rejections: result.rejections },
      'operation rejected',
    );
    return {
      response: { allowed: false, status: { code: 403, message } },
      result: enforced > 0 ? 'rejected' : 'refused',
    };
  }
  if (result.patch.length === 0) return { response: { allowed: true }, result: 'allowed' };
  if (context.operation === 'DELETE') {
    // A deletion has no object to patch: only Reject rules can act on DELETE.
    logger.debug(
      { uid: context.uid, object: objectRef(context), rules: result.applied.map((a) => a.rule) },
      'Patch rules matched a DELETE; nothing to patch',
    );
    return { response: { allowed: true }, result: 'allowed' };
  }
  for (const applied of result.applied) {
    metrics.rulePatched(applied.rule);
    metrics.ruleResult(applied.rule, 'patched');
  }
  logger.info(
    {
      uid: context.uid,
      object: objectRef(context),
      rules: result.applied.map((a) => a.rule),
      patch: result.patch,
    },
    'patch applied',
  );
  return { response: { allowed: true, patch: result.patch }, result: 'patched' };
}

function objectRef(context: RuleFailureContext): {
  kind: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
} {
  return { kind: context.kind, namespace: context.namespace, name: context.name };
}

function objectName(object: JsonObject): string | undefined {
  const metadata = object.metadata;
  if (!isJsonObject(metadata)) return undefined;
  return typeof metadata.name === 'string'
    ? metadata.name
    : typeof metadata.generateName === 'string'
      ? metadata.generateName
      : undefined;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
