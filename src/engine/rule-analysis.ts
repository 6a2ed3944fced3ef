import type { Expr } from './expr/index.js';
import type { CompiledMatch } from './match/index.js';

/**
 * Kinds a match section can accept, when one of its items is a plain `$.kind` criterion with
 * matchValue/matchValues (not negated, no regex): the store indexes rules by these so that rules
 * for other kinds cost nothing. Undefined when the rule may match any kind.
 */
export function literalKinds(match: CompiledMatch): readonly string[] | undefined {
  for (const item of match.items) {
    const { spec } = item;
    if (spec.negate === true || spec.matchRegex !== undefined) continue;
    if (!isKindPath(item.select.ast)) continue;
    const kinds = [
      ...(spec.matchValue === undefined ? [] : [spec.matchValue]),
      ...(spec.matchValues ?? []),
    ];
    if (kinds.length === 0) continue;
    if (
      spec.matchValue !== undefined &&
      spec.matchValues !== undefined &&
      spec.matchValues.length > 0
    ) {
      // Both set: a value must equal matchValue and be in matchValues.
      return spec.matchValues.includes(spec.matchValue) ? [spec.matchValue] : [];
    }
    return kinds;
  }
  return undefined;
}

function isKindPath(ast: Expr): boolean {
  if (ast.type !== 'path' || ast.root !== 'root' || ast.steps.length !== 1) return false;
  const [step] = ast.steps;
  return step?.type === 'member' && step.name === 'kind';
}

/** Number of indexes a patch select captures: one per multi-valued step of its top-level path. */
export function captureCount(ast: Expr): number {
  if (ast.type !== 'path') return 0;
  return ast.steps.filter((step) => step.type !== 'member' && step.type !== 'index').length;
}
