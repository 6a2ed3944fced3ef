import type { RuleFailure } from '../rule-render.js';
import type { CompiledRule } from '../rule.js';
import { comparisonText, matchItemLabel, oneLine, patchLabel } from './labels.js';
import type { OperationRecord, RuleRecord } from './recorder.js';
import type {
  ExplainLimits,
  FailureNode,
  MatchItemNode,
  NoteNode,
  OperationNode,
  PatchNode,
  RejectionNode,
  RuleNode,
} from './schema.js';
import type { SkipReason } from './skipped-rules.js';
import { lookupNodes } from './lookup-nodes.js';

/** The limits nodes are built under, and the cutter of texts (which counts what it cuts). */
export interface NodeContext {
  readonly limits: ExplainLimits;
  cut(text: string, maxChars: number): string;
}

/** The node of a candidate rule, from what the recorder saw and the rule's failure, if any. */
export function candidateNode(
  rule: CompiledRule,
  record: RuleRecord | undefined,
  failure: RuleFailure | undefined,
  context: NodeContext,
): RuleNode {
  const status = ruleStatus(rule, record, failure);
  const children: RuleNode['children'][number][] = [...matchNodes(rule, record, failure, context)];
  if (record !== undefined && rule.type === 'Patch') {
    children.push(...operationNodes(rule, record, failure, status === 'applied', context));
  }
  if (record?.rejection !== undefined) {
    children.push(rejectionNode(record.rejection, rule.enforcement));
  }
  if (record !== undefined) children.push(...lookupNodes(record, context));
  if (failure !== undefined) children.push(failureNode(failure, context));
  const step = record?.step ?? null;
  return {
    kind: 'rule',
    status,
    label: ruleLabel(
      rule,
      step,
      status === 'failed' && failure !== undefined
        ? `failed [${failure.code}]`
        : status.replace('-', ' '),
    ),
    ...ruleIdentity(rule),
    order: record?.order ?? null,
    step,
    matched: record?.matched ?? null,
    skipped: null,
    children,
  };
}

/** The node of a rule that was not a candidate. */
export function skippedNode(
  rule: CompiledRule,
  reason: SkipReason,
  context: NodeContext,
): RuleNode {
  const skipped = { ...reason, message: context.cut(reason.message, context.limits.textChars) };
  return {
    kind: 'rule',
    status: 'skipped',
    label: ruleLabel(rule, null, `skipped by ${skipped.reason}: ${skipped.message}`),
    ...ruleIdentity(rule),
    order: null,
    step: null,
    matched: null,
    skipped,
    children: [],
  };
}

export function noteNode(label: string): NoteNode {
  return { kind: 'note', status: 'info', label, children: [] };
}

function ruleIdentity(
  rule: CompiledRule,
): Pick<RuleNode, 'rule' | 'namespace' | 'name' | 'type' | 'tier'> {
  return {
    rule: rule.key,
    namespace: rule.namespace,
    name: rule.name,
    type: rule.type,
    tier: rule.tier,
  };
}

function ruleLabel(rule: CompiledRule, step: number | null, outcome: string): string {
  const parts = [rule.key, rule.type, `tier ${String(rule.tier)}`];
  if (step !== null) parts.push(`step ${String(step)}`);
  return `${parts.join(' · ')}: ${outcome}`;
}

function ruleStatus(
  rule: CompiledRule,
  record: RuleRecord | undefined,
  failure: RuleFailure | undefined,
): RuleNode['status'] {
  // A Reject rule whose message fails still rejects (without the message).
  if (rule.type === 'Reject' && record?.rejection !== undefined) return 'rejected';
  if (rule.type === 'Patch' && record?.step !== null && record?.step !== undefined)
    return 'applied';
  if (failure !== undefined) return 'failed';
  if (record?.matched === false) return 'not-matched';
  return 'not-evaluated';
}

/** Whether a failure's field is `prefix` or lies under it (`spec.match[1]` covers `spec.match[1].select`). */
function failedAt(failure: RuleFailure | undefined, prefix: string): boolean {
  const field = failure?.field;
  if (field === undefined) return false;
  return field === prefix || field.startsWith(`${prefix}.`);
}

function matchNodes(
  rule: CompiledRule,
  record: RuleRecord | undefined,
  failure: RuleFailure | undefined,
  context: NodeContext,
): (MatchItemNode | NoteNode)[] {
  const { limits } = context;
  const nodes: (MatchItemNode | NoteNode)[] = [];
  const items = rule.match.items;
  const shown = Math.min(items.length, limits.children);
  const seen = record?.itemsSeen ?? 0;
  const recorded = record?.items.length ?? 0;
  for (let i = 0; i < shown; i++) {
    const field = `spec.match[${String(i)}]`;
    if (i >= recorded && i < seen) {
      nodes.push(noteNode(`${field}: evaluated, not recorded (trace size limit)`));
      continue;
    }
    const spec = items[i]?.spec;
    if (spec === undefined) continue;
    const item = record?.items[i];
    const failed = item === undefined && i === seen && failedAt(failure, field);
    const status: MatchItemNode['status'] =
      item === undefined
        ? failed
          ? 'failed'
          : 'not-evaluated'
        : item.matched
          ? 'matched'
          : 'not-matched';
    const text = (s: string): string => context.cut(s, limits.textChars);
    const described = {
      select: text(spec.select),
      matchFor: spec.matchFor ?? 'Any',
      matchValue: spec.matchValue === undefined ? null : text(spec.matchValue),
      matchValues:
        spec.matchValues === undefined ? null : spec.matchValues.slice(0, limits.values).map(text),
      matchRegex: spec.matchRegex === undefined ? null : text(spec.matchRegex),
      negate: spec.negate === true,
    };
    const outcome = {
      status,
      result: item?.result ?? null,
      decision: item?.decision ?? null,
      decidingValue: item?.decidingValue ?? null,
      outcome: item === undefined ? null : item.matched !== described.negate,
      matched: item?.matched ?? null,
    };
    nodes.push({
      kind: 'match',
      status,
      label: matchItemLabel(field, described, comparisonText(described), outcome),
      field,
      ...described,
      result: outcome.result,
      decision: outcome.decision,
      decidingValue: outcome.decidingValue,
      outcome: outcome.outcome,
      matched: outcome.matched,
      children: [],
    });
  }
  if (items.length > shown) {
    nodes.push(noteNode(`${String(items.length - shown)} more criteria items not shown`));
  }
  return nodes;
}

function operationNodes(
  rule: CompiledRule,
  record: RuleRecord,
  failure: RuleFailure | undefined,
  applied: boolean,
  context: NodeContext,
): (OperationNode | NoteNode)[] {
  if (record.matched !== true) return [];
  const { limits } = context;
  const nodes: (OperationNode | NoteNode)[] = [];
  const shown = Math.min(rule.patch.length, limits.children);
  for (let i = 0; i < shown; i++) {
    const op = rule.patch[i];
    if (op === undefined) continue;
    const failed = failedAt(failure, op.field);
    const recorded: OperationRecord | undefined = record.operations[i];
    const status: OperationNode['status'] = applied
      ? 'applied'
      : failed
        ? 'failed'
        : recorded === undefined
          ? 'not-evaluated'
          : 'not-applied';
    const patchStatus: PatchNode['status'] = applied ? 'applied' : 'not-applied';
    const dynamic = op.value !== undefined && !op.value.isStatic;
    const children: (PatchNode | NoteNode)[] = (recorded?.patches ?? []).map(
      (patch): PatchNode => ({
        kind: 'patch',
        status: patchStatus,
        label: patchLabel(op.op, { ...patch, status: patchStatus }, dynamic),
        op: op.op,
        ...patch,
        children: [],
      }),
    );
    if (recorded !== undefined && recorded.omitted > 0) {
      children.push(noteNode(`${String(recorded.omitted)} more rendered patches not recorded`));
    }
    const text = (s: string): string => context.cut(s, limits.textChars);
    const count = recorded === undefined ? null : recorded.selectCount;
    const what = `${op.field} ${op.op} ${oneLine(text(op.path.source))}`;
    const selected =
      op.select === undefined ? '' : ` for each of select ${oneLine(text(op.select.source))}`;
    const items =
      count === null || op.select === undefined
        ? ''
        : ` (${String(count)} item${count === 1 ? '' : 's'})`;
    nodes.push({
      kind: 'operation',
      status,
      label: `${what}${selected}${items}: ${status.replace('-', ' ')}`,
      field: op.field,
      op: op.op,
      select: op.select === undefined ? null : text(op.select.source),
      path: text(op.path.source),
      value: op.value === undefined ? null : text(op.value.source),
      selectCount: count,
      children,
    });
  }
  const more = rule.patch.length - shown;
  if (more > 0) nodes.push(noteNode(`${String(more)} more patch operations not shown`));
  return nodes;
}

/** What a matching Reject rule does, by its enforcement mode. */
const REJECTION_LABELS: Readonly<Record<RejectionNode['enforcement'], string>> = {
  Enforce: 'rejects the request',
  Warn: 'warns (enforcement Warn: admitted, kubectl prints the warning)',
  Audit: 'audits (enforcement Audit: admitted silently, counted)',
};

function rejectionNode(
  rejection: NonNullable<RuleRecord['rejection']>,
  enforcement: RejectionNode['enforcement'],
): RejectionNode {
  return {
    kind: 'rejection',
    status: 'rejected',
    label: `${REJECTION_LABELS[enforcement]}: ${oneLine(rejection.text)}`,
    message: rejection.message,
    text: rejection.text,
    enforcement,
    children: [],
  };
}

function failureNode(failure: RuleFailure, context: NodeContext): FailureNode {
  const field = failure.field ?? 'spec';
  const message = context.cut(failure.message, context.limits.textChars);
  return {
    kind: 'failure',
    status: 'failed',
    label: `failed at ${field} [${failure.code}]: ${oneLine(message)}${failure.failurePolicy === 'Fail' ? ' (failure policy Fail: the request is refused)' : ''}`,
    field,
    code: failure.code,
    message,
    failurePolicy: failure.failurePolicy,
    children: [],
  };
}
