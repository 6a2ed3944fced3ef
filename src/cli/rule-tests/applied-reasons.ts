import type { ExplainDocument, ExplainNode, RuleNode } from '../../engine/explain/index.js';

/**
 * Why the rules a case expected in `expect.applied` did not apply, and which rules applied that it
 * did not expect, read from the request's explanation: for a rule that did not match, the first
 * match item that did not match (`spec.match[1] $.metadata.labels.app = "web": got api → not
 * matched`); for a skipped or failed rule, its outcome. One line per rule.
 */
export function appliedReasons(
  explanation: ExplainDocument,
  expected: readonly string[],
  actual: readonly string[],
): string[] {
  const nodes = new Map<string, RuleNode>();
  for (const child of explanation.children) {
    if (child.kind === 'rule') nodes.set(child.rule, child);
  }
  const lines: string[] = [];
  for (const rule of expected) {
    if (actual.includes(rule)) continue;
    lines.push(notApplied(rule, nodes.get(rule)));
  }
  for (const rule of actual) {
    if (!expected.includes(rule)) lines.push(`${rule} applied, and the case does not expect it`);
  }
  return lines;
}

function notApplied(rule: string, node: RuleNode | undefined): string {
  if (node === undefined) {
    return `${rule} did not apply: no ModRule of this test file has that name (names are <namespace>/<name>)`;
  }
  switch (node.status) {
    case 'not-matched': {
      const item = firstFailedItem(node.children);
      return item === undefined ? `${rule} did not match` : `${rule} did not match: ${item.label}`;
    }
    case 'rejected':
      return `${rule} is a Reject rule (it rejected the object); applied lists Patch rules`;
    case 'applied':
      return `${rule} applied, but not in the order expected`;
    default:
      return `${rule} did not apply: ${node.label}`;
  }
}

/** The first match item that did not match or failed. */
function firstFailedItem(children: readonly ExplainNode[]): ExplainNode | undefined {
  return children.find(
    (child) =>
      child.kind === 'match' && (child.status === 'not-matched' || child.status === 'failed'),
  );
}
