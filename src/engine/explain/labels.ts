import type { MatchItemSpec } from '../../api/modrule-types.js';
import type { MatchItemNode, PatchNode } from './schema.js';

/**
 * One-line plain-text labels of explain nodes. Every piece they quote is already cut to the
 * trace's limits; control characters are escaped so a label never spans lines.
 */

/** Escapes line breaks, tabs and other control characters (labels are single lines). */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => {
    switch (c) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}

/** `"text"` with line breaks escaped (text is already cut). */
function quoted(text: string): string {
  return `"${oneLine(text)}"`;
}

/** What an item compares its values with: `= "v"`, `in ["a", "b"]`, `=~ /re/`, joined by "and". */
export function comparisonText(spec: {
  readonly matchValue: string | null;
  readonly matchValues: readonly string[] | null;
  readonly matchRegex: string | null;
}): string {
  const parts: string[] = [];
  if (spec.matchValue !== null) parts.push(`= ${quoted(spec.matchValue)}`);
  if (spec.matchValues !== null && spec.matchValues.length > 0) {
    parts.push(`in [${spec.matchValues.map(quoted).join(', ')}]`);
  }
  if (spec.matchRegex !== null) parts.push(`=~ /${oneLine(spec.matchRegex)}/`);
  return parts.join(' and ');
}

/** `spec.match[0] $.kind = "Deployment": got Deployment → matched` */
export function matchItemLabel(
  field: string,
  spec: Pick<MatchItemSpec, 'matchFor'> & { readonly select: string; readonly negate: boolean },
  comparison: string,
  node: Pick<
    MatchItemNode,
    'result' | 'decision' | 'decidingValue' | 'status' | 'outcome' | 'matched'
  >,
): string {
  const head = [field, oneLine(spec.select)];
  if (comparison !== '') head.push(comparison);
  if (spec.matchFor === 'All') head.push('(matchFor All)');
  if (spec.negate) head.push('(negate)');
  const subject = head.join(' ');
  switch (node.status) {
    case 'not-evaluated':
      return `${subject}: not evaluated (an earlier item decided)`;
    case 'failed':
      return `${subject}: the select failed (see the failure)`;
    default:
      return `${subject}: got ${gotText(node.result)} → ${node.status === 'matched' ? 'matched' : 'not matched'}${decisionText(node)}`;
  }
}

function gotText(result: MatchItemNode['result']): string {
  if (result === null) return 'nothing';
  if (result.type === 'boolean') return String(result.value);
  if (result.count === 0) return result.undefinedCount > 0 ? 'undefined' : 'no values';
  const shown = result.values.map(oneLine);
  const more = result.count > shown.length ? `, … ${String(result.count - shown.length)} more` : '';
  return result.count === 1 ? (shown[0] ?? '') : `[${shown.join(', ')}${more}]`;
}

function decisionText(
  node: Pick<MatchItemNode, 'result' | 'decision' | 'decidingValue' | 'outcome' | 'matched'>,
): string {
  // Which value decided matters only when there were several.
  const several = node.result?.type === 'values' && node.result.count > 1;
  const nth = node.decidingValue === null || !several ? '' : ` #${String(node.decidingValue)}`;
  const reasons: Record<NonNullable<MatchItemNode['decision']>, string> = {
    boolean: '',
    'no-values': '',
    exists: '',
    'undefined-element': 'an element is undefined',
    'value-accepted': several ? `value${nth} accepted` : '',
    'none-accepted': 'no value accepted',
    'all-accepted': 'every value accepted',
    'value-refused': several ? `value${nth} refused` : '',
  };
  const parts: string[] = [];
  const reason = node.decision === null ? '' : reasons[node.decision];
  if (reason !== '') parts.push(reason);
  if (node.outcome !== null && node.matched !== null && node.outcome !== node.matched) {
    parts.push(`negated from ${node.outcome ? 'a match' : 'no match'}`);
  }
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

/** `add /metadata/labels/owner = "team-a" (template gave: team-a; selected: x; keys: [0])` */
export function patchLabel(
  op: string,
  node: Pick<PatchNode, 'path' | 'selected' | 'keyParts' | 'rendered' | 'value' | 'status'>,
  dynamicValue: boolean,
): string {
  let text = `${op} ${oneLine(node.path)}`;
  if (node.value !== null) text += ` = ${oneLine(node.value)}`;
  const notes: string[] = [];
  if (dynamicValue && node.rendered !== null)
    notes.push(`template gave: ${oneLine(node.rendered)}`);
  if (node.selected !== null) notes.push(`selected: ${oneLine(node.selected)}`);
  if (node.keyParts.length > 0)
    notes.push(`keys: [${node.keyParts.map((k) => oneLine(String(k))).join(', ')}]`);
  if (notes.length > 0) text += ` (${notes.join('; ')})`;
  return node.status === 'applied' ? text : `${text}: ${node.status.replace('-', ' ')}`;
}
