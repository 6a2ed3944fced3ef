import type { DefaultedModRuleSpec, FieldError } from './modrule-types.js';
import { compileMatch, MatchCompileError } from '../engine/match/index.js';
import { compileSelect } from '../engine/expr/index.js';
import { compileRegex } from '../engine/regex.js';
import { KubemodError } from '../errors/catalog.js';

/**
 * Compiles every expression of a structurally valid spec (selects, regexes) and reports what does
 * not compile, with field paths. Templates and patch paths are checked by the rule compiler.
 */
export function checkSemantics(spec: DefaultedModRuleSpec): FieldError[] {
  const errors: FieldError[] = [];
  const record = (err: unknown, field?: string): void => {
    if (err instanceof MatchCompileError) {
      err.errors.forEach((e) => {
        record(e);
      });
    } else if (err instanceof KubemodError) {
      const anchored = field === undefined ? err : err.atField(field);
      errors.push({
        field: anchored.field ?? 'spec',
        message: anchored.rawMessage(),
        code: anchored.code,
      });
    } else {
      throw err;
    }
  };
  try {
    compileMatch(spec.match);
  } catch (err) {
    record(err);
  }
  spec.patch?.forEach((op, i) => {
    if (op.select === undefined) return;
    try {
      compileSelect(op.select);
    } catch (err) {
      record(err, `spec.patch[${i}].select`);
    }
  });
  if (spec.targetNamespaceRegex !== undefined && spec.targetNamespaceRegex !== '') {
    try {
      compileRegex(spec.targetNamespaceRegex);
    } catch (err) {
      record(err, 'spec.targetNamespaceRegex');
    }
  }
  return errors;
}
