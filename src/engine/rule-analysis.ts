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
    if (!item.select.isKindPath) continue;
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
