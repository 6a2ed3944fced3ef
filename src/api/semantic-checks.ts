import type { DefaultedModRule, FieldError } from './modrule-types.js';
import { compileRule, RuleCompileError } from '../engine/rule.js';

/**
 * Compiles every expression of a structurally valid ModRule (selects, regexes, templates, patch
 * paths and placeholders) and reports what does not compile, with field paths.
 */
export function checkSemantics(modRule: DefaultedModRule): FieldError[] {
  try {
    compileRule(modRule);
    return [];
  } catch (err) {
    if (err instanceof RuleCompileError) return [...err.errors];
    throw err;
  }
}
