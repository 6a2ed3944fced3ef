import { isJsonObject } from '../json.js';
import {
  candidateQueryOf,
  evaluate,
  type EvaluationRequest,
  type EvaluationResult,
  type RuleFailure,
} from '../evaluate.js';
import type { RuleStore } from '../store.js';
import { DEFAULT_EXPLAIN_LIMITS, TraceRecorder, type RuleRecord } from './recorder.js';
import { candidateNode, noteNode, skippedNode, type NodeContext } from './rule-nodes.js';
import {
  EXPLAIN_VERSION,
  type ExplainDocument,
  type ExplainLimits,
  type NoteNode,
  type RuleNode,
} from './schema.js';
import { skippedRules } from './skipped-rules.js';
import { cutText } from './bounded-print.js';
import { oneLine } from './labels.js';

export interface Explained {
  /** The evaluation's result: the same as evaluate() gives for the request without explaining. */
  readonly result: EvaluationResult;
  readonly explanation: ExplainDocument;
}

/**
 * Evaluates `request` as evaluate() does, with a TraceRecorder passed in, and explains the result:
 * every candidate rule in the order the engine visited it (match items, rendered operations, the
 * step it was applied at, its rejection or failure), then the rules of the store that were not
 * candidates, with the reason. The trace is bounded by `limits` (DEFAULT_EXPLAIN_LIMITS).
 */
export function explainEvaluation(
  store: RuleStore,
  request: Omit<EvaluationRequest, 'trace'>,
  limits: Partial<ExplainLimits> = {},
  /**
   * How an offline path decided the request's namespace (RequestNamespace.reason): the first
   * node of the tree and `request.namespaceReason` state what was assumed.
   */
  namespaceReason?: string,
): Explained {
  const bounds: ExplainLimits = { ...DEFAULT_EXPLAIN_LIMITS, ...limits };
  const recorder = new TraceRecorder(bounds);
  const result = evaluate(store, { ...request, trace: recorder });
  const query = candidateQueryOf(request);
  const candidates = store.candidates(query);
  const skipped = skippedRules(store, query, candidates);

  const failures = new Map<string, RuleFailure>(result.failures.map((f) => [f.rule, f]));
  const records = new Map<string, RuleRecord>(recorder.records.map((r) => [r.rule.key, r]));
  // Visited rules in visiting order, then candidates the engine never turned to (none today).
  const visited = recorder.records.map((r) => r.rule);
  const unvisited = candidates.filter((rule) => !records.has(rule.key));
  const children: (RuleNode | NoteNode)[] = [];
  const assumed =
    namespaceReason === undefined ? undefined : cutText(namespaceReason, bounds.textChars);
  if (assumed !== undefined) children.push(noteNode(`namespace: ${assumed}`));
  const notes = children.length;
  let omittedRules = 0;
  for (const rule of [...visited, ...unvisited]) {
    if (children.length >= bounds.rules + notes) {
      omittedRules++;
      continue;
    }
    children.push(candidateNode(rule, records.get(rule.key), failures.get(rule.key), recorder));
  }
  omittedRules += candidates.length - visited.length - unvisited.length;
  for (const { rule, skipped: reason } of skipped) {
    if (children.length >= bounds.rules + notes) {
      omittedRules++;
      continue;
    }
    children.push(skippedNode(rule, reason, recorder));
  }
  if (omittedRules > 0) {
    children.push(noteNode(`${String(omittedRules)} more rules not shown (trace limit)`));
  }
  if (recorder.droppedForSize > 0) {
    children.push(
      noteNode(
        `${String(recorder.droppedForSize)} details not recorded: the trace reached its size limit of ${String(bounds.bytes)} characters`,
      ),
    );
  }
  for (const message of recorder.internalErrors) {
    children.push(noteNode(`explain could not record a detail: ${cutText(message, 200)}`));
  }

  const summary: ExplainDocument['summary'] = {
    rules: candidates.length + skipped.length,
    candidates: candidates.length,
    skipped: skipped.length,
    matched: recorder.matchedRules,
    notMatched: recorder.unmatchedRules,
    applied: result.applied.length,
    rejected: result.rejections.length,
    warned: result.warnings.length,
    audited: result.audited.length,
    failed: result.failures.length,
    patchOperations: result.patch.length,
  };
  const requestInfo = {
    ...describeRequest(request, recorder),
    ...(assumed === undefined ? {} : { namespaceReason: assumed }),
  };
  const explanation: ExplainDocument = {
    explainVersion: EXPLAIN_VERSION,
    kind: 'explanation',
    status: summary.rejected > 0 ? 'rejected' : summary.applied > 0 ? 'applied' : 'info',
    label: documentLabel(requestInfo, summary),
    request: requestInfo,
    summary,
    limits: bounds,
    truncated: recorder.truncated || recorder.valuesCut > 0 || omittedRules > 0,
    omittedRules,
    children,
  };
  return { result, explanation };
}

function describeRequest(
  request: Omit<EvaluationRequest, 'trace'>,
  context: NodeContext,
): ExplainDocument['request'] {
  const { object } = request;
  const metadata = object.metadata;
  const name = isJsonObject(metadata) ? metadata.name : undefined;
  const text = (value: unknown): string | null =>
    typeof value === 'string' ? context.cut(value, context.limits.textChars) : null;
  return {
    operation: request.operation,
    namespace: text(request.namespace),
    kind: text(object.kind),
    name: text(name),
  };
}

function documentLabel(
  request: ExplainDocument['request'],
  summary: ExplainDocument['summary'],
): string {
  const name =
    request.name === null
      ? ''
      : ` ${request.namespace === null ? '' : `${request.namespace}/`}${request.name}`;
  const object = `${request.kind ?? 'object'}${name}`;
  const n = (count: number, what: string): string =>
    `${String(count)} ${what}${count === 1 ? '' : 's'}`;
  const outcomes = [
    `${String(summary.applied)} applied`,
    `${String(summary.rejected)} rejected`,
    ...(summary.warned > 0 ? [`${String(summary.warned)} warned`] : []),
    ...(summary.audited > 0 ? [`${String(summary.audited)} audited`] : []),
    `${String(summary.notMatched)} not matched`,
    `${String(summary.failed)} failed`,
  ];
  return `${request.operation} ${oneLine(object)}: ${n(summary.rules, 'rule')} (${String(summary.candidates)} candidates, ${String(summary.skipped)} skipped): ${outcomes.join(', ')}; ${n(summary.patchOperations, 'patch operation')}`;
}
