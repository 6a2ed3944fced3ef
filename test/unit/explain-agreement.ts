import { expect } from 'vitest';
import {
  candidateQueryOf,
  type EvaluationRequest,
  type EvaluationResult,
} from '../../src/engine/evaluate.js';
import {
  EXPLAIN_STATUSES,
  EXPLAIN_VERSION,
  type ExplainDocument,
  type ExplainNode,
  type MatchItemNode,
  type OperationNode,
  type PatchNode,
  type RuleNode,
} from '../../src/engine/explain/index.js';
import type { JsonPatchOperation, JsonValue } from '../../src/engine/json.js';
import type { RuleStore } from '../../src/engine/store.js';

/** Child nodes of one kind. */
function childrenOf<K extends ExplainNode['kind']>(
  node: { readonly children: readonly ExplainNode[] },
  kind: K,
): Extract<ExplainNode, { kind: K }>[] {
  return node.children.filter((c): c is Extract<ExplainNode, { kind: K }> => c.kind === kind);
}

/** A rendered patch node as the JSON patch operation it stands for (its value text parsed back). */
function asOperation(node: PatchNode): JsonPatchOperation {
  if (node.op === 'remove') return { op: 'remove', path: node.path };
  expect(node.value, `${node.path}: value recorded`).not.toBeNull();
  return { op: node.op, path: node.path, value: JSON.parse(node.value ?? 'null') as JsonValue };
}

/**
 * Checks an explanation against the result of the same evaluation, for inputs small enough not to
 * meet any trace limit: the generic node contract holds everywhere; the rules it says were
 * applied are result.applied (in order, with exactly the operations applied), the rejections are
 * result.rejections, the failures result.failures; every rule of the store appears once, the
 * candidates as the store offers them and the others skipped with a real reason; match items
 * agree with their rule's outcome; steps run tier by tier.
 */
export function checkExplanation(
  doc: ExplainDocument,
  result: EvaluationResult,
  store: RuleStore,
  request: EvaluationRequest,
): void {
  // Plain JSON, and every node keeps the generic contract.
  expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  expect(doc.explainVersion).toBe(EXPLAIN_VERSION);
  const stack: ExplainNode[] = [doc];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    expect(EXPLAIN_STATUSES).toContain(node.status);
    expect(node.label).not.toMatch(/[\n\r]/);
    expect(node.label.length).toBeGreaterThan(0);
    expect(Array.isArray(node.children)).toBe(true);
    stack.push(...node.children);
  }
  expect(doc.truncated).toBe(false);

  const rules = childrenOf(doc, 'rule');
  const byKey = new Map(rules.map((r) => [r.rule, r]));
  expect(byKey.size).toBe(rules.length);
  expect([...byKey.keys()].sort()).toEqual(
    store
      .all()
      .map((r) => r.key)
      .sort(),
  );
  const candidates = store.candidates(candidateQueryOf(request));
  const visited = rules.filter((r) => r.status !== 'skipped');
  expect(visited.map((r) => r.rule).sort()).toEqual(candidates.map((r) => r.key).sort());
  for (const rule of rules.filter((r) => r.status === 'skipped')) {
    expect(rule.skipped?.reason, rule.rule).not.toBe('index');
    expect(rule.children).toEqual([]);
  }
  expect(doc.summary).toMatchObject({
    rules: store.size,
    candidates: candidates.length,
    skipped: store.size - candidates.length,
    applied: result.applied.length,
    rejected: result.rejections.length,
    failed: result.failures.length,
    patchOperations: result.patch.length,
  });

  // Applied: exactly result.applied, in step order, with the operations applied.
  const applied = rules
    .filter((r) => r.status === 'applied')
    .sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
  expect(applied.map((r) => r.rule)).toEqual(result.applied.map((a) => a.rule));
  expect(applied.map((r) => r.step)).toEqual(applied.map((_, i) => i + 1));
  applied.forEach((rule, i) => {
    const ops = childrenOf(rule, 'operation');
    expect(ops.every((op) => op.status === 'applied')).toBe(true);
    const listed = ops.flatMap((op) => childrenOf(op, 'patch').map(asOperation));
    expect(listed, rule.rule).toEqual(result.applied[i]?.operations);
    for (const op of ops) expect(childrenOf(op, 'patch')).toHaveLength(op.selectCount ?? -1);
  });
  // Tier by tier: steps never go back to a lower tier.
  for (let i = 1; i < applied.length; i++) {
    expect(applied[i]?.tier ?? 0).toBeGreaterThanOrEqual(applied[i - 1]?.tier ?? 0);
  }

  // Rejections: the rules that rejected, in visiting order, give result.rejections.
  const rejected = visited.filter((r) => r.status === 'rejected');
  expect(rejected.map((r) => childrenOf(r, 'rejection')[0]?.text)).toEqual(result.rejections);
  expect(rejected.every((r) => r.type === 'Reject' && r.matched === true)).toBe(true);

  // Failures: one failure node per result failure, on its rule, with its field and code.
  const failureNodes = visited.flatMap((r) =>
    childrenOf(r, 'failure').map((f) => ({ rule: r.rule, field: f.field, code: f.code })),
  );
  expect(failureNodes.sort(byRule)).toEqual(
    result.failures
      .map((f) => ({ rule: f.rule, field: f.field ?? 'spec', code: f.code }))
      .sort(byRule),
  );

  for (const rule of visited) checkMatchItems(rule);
}

function byRule(a: { rule: string }, b: { rule: string }): number {
  return a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0;
}

/** Match items agree with the rule: all matched when it matched, evaluation stops at the first miss. */
function checkMatchItems(rule: RuleNode): void {
  const items: MatchItemNode[] = childrenOf(rule, 'match');
  if (rule.matched === true) {
    expect(
      items.every((i) => i.status === 'matched'),
      rule.rule,
    ).toBe(true);
  }
  if (rule.matched === false) {
    const miss = items.findIndex((i) => i.status === 'not-matched');
    expect(miss, rule.rule).toBeGreaterThanOrEqual(0);
    expect(items.slice(0, miss).every((i) => i.status === 'matched')).toBe(true);
    expect(items.slice(miss + 1).every((i) => i.status === 'not-evaluated')).toBe(true);
  }
  if (rule.status === 'not-matched') expect(childrenOf(rule, 'operation')).toEqual([]);
  for (const item of items) {
    if (item.status === 'matched' || item.status === 'not-matched') {
      expect(item.matched).toBe(item.status === 'matched');
      expect(item.outcome).toBe(item.matched !== item.negate);
    }
    // The value that decided a comparison with matchValue really is that value.
    if (
      item.decision === 'value-accepted' &&
      item.matchValue !== null &&
      item.result?.type === 'values'
    ) {
      expect(item.result.values[item.decidingValue ?? -1]).toBe(item.matchValue);
    }
  }
  const failedOps: OperationNode[] = childrenOf(rule, 'operation').filter(
    (o) => o.status === 'failed',
  );
  expect(failedOps.length).toBeLessThanOrEqual(1);
}
