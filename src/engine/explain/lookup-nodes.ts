import { oneLine } from './labels.js';
import type { RuleRecord } from './recorder.js';
import type { ExplainLimits, LookupNode, NoteNode } from './schema.js';

/** What the node builders share (rule-nodes' NodeContext has these). */
interface NodeContext {
  readonly limits: ExplainLimits;
  cut(text: string, maxChars: number): string;
}

/** The rule's reads of the cluster, in the order made (see LookupNode). */
export function lookupNodes(record: RuleRecord, context: NodeContext): (LookupNode | NoteNode)[] {
  const nodes: (LookupNode | NoteNode)[] = record.lookups.map((l) => {
    const reason = l.reason === undefined ? null : context.cut(l.reason, context.limits.textChars);
    const failed = l.answer !== 'found' && l.answer !== 'absent';
    return {
      kind: 'lookup',
      status: failed ? 'failed' : 'info',
      label: `${l.function} ${context.cut(l.target, context.limits.textChars)}: ${l.answer}${reason === null ? '' : ` (${oneLine(reason)})`}${l.memoised ? ' [memoised]' : ''}`,
      function: l.function,
      target: l.target,
      answer: l.answer,
      reason,
      memoised: l.memoised,
      children: [],
    };
  });
  if (record.lookupsOmitted > 0) {
    const label = `${String(record.lookupsOmitted)} more lookups not recorded`;
    nodes.push({ kind: 'note', status: 'info', label, children: [] });
  }
  return nodes;
}
