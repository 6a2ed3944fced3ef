import {
  validateModRuleStructure,
  type DefaultedModRule,
  type FieldError,
  type ValidationResult,
} from '../api/index.js';
import { compileRule, RuleCompileError } from './rule.js';

/**
 * Validates an untrusted ModRule as the validating webhook does: its structure and defaults
 * (src/api, which knows no expression language), then, unless `semantic` is false, every
 * expression it holds compiled by the engine. Returns the rule typed and defaulted, or every
 * problem found, each with its field path. Loaders that compile the rule right after pass
 * `semantic: false` and take those errors from compileRule instead.
 */
export function validateModRule(
  input: unknown,
  options: { readonly semantic?: boolean } = {},
): ValidationResult {
  const structure = validateModRuleStructure(input);
  if (options.semantic === false) return structure;
  // The expressions of the parts that could be read are checked even when the structure has
  // errors, so that all problems are listed together.
  const modRule = structure.ok ? structure.modRule : structure.partial;
  const errors = [
    ...(structure.ok ? [] : structure.errors),
    ...(modRule === undefined ? [] : checkSemantics(modRule)),
  ];
  if (errors.length === 0) return structure;
  return { ok: false, errors, partial: modRule };
}

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
