import { formatFieldErrors, type DefaultedModRule, type FieldError } from '../api/index.js';
import { describeError, errorCatalog, KubemodError } from '../errors/catalog.js';
import type { Compilers } from '../engine/compilers.js';
import { compileRule, RuleCompileError, type CompiledRule } from '../engine/rule.js';
import { validateModRule } from '../engine/validate-modrule.js';

export type ModRuleCheck =
  | { readonly ok: true; readonly modRule: DefaultedModRule; readonly rule: CompiledRule }
  | { readonly ok: false; readonly key: string; readonly errors: readonly FieldError[] };

export interface ModRuleCheckOptions {
  readonly clusterNamespace: string;
  /** Namespace given to a rule without `metadata.namespace`. */
  readonly defaultNamespace: string;
  /** Shared compilers (see cachingCompilers) when many rules are loaded into one process. */
  readonly compilers?: Compilers | undefined;
}

/**
 * The whole admission-time check of a ModRule: API validation and defaulting, then compilation
 * (selects, regexes, templates, patch paths), so every problem is reported with its field path.
 * Never throws: whatever goes wrong while checking one rule (a stack overflow compiling an
 * enormous expression included) is that rule's field error.
 */
export function checkModRule(raw: unknown, options: ModRuleCheckOptions): ModRuleCheck {
  try {
    return checkUnguarded(raw, options);
  } catch (err) {
    return {
      ok: false,
      key: keyOf(raw, options.defaultNamespace),
      errors: [unexpectedCompileError(err)],
    };
  }
}

/**
 * The field error for an error compileRule did not catalogue (e.g. a RangeError from compiling a
 * 4,000-term select): on `spec`, or on the field a KubemodError names.
 */
export function unexpectedCompileError(err: unknown): FieldError {
  if (err instanceof RuleCompileError) {
    const first = err.errors[0];
    if (first !== undefined) return first;
  }
  if (err instanceof KubemodError) {
    return { field: err.field ?? 'spec', message: err.rawMessage(), code: err.code };
  }
  const message =
    err instanceof RangeError
      ? `the rule is too large or too deeply nested to compile (${describeError(err)})`
      : `the rule cannot be compiled: ${describeError(err)}`;
  return { field: 'spec', message, code: errorCatalog.MODRULE_INVALID.code };
}

function checkUnguarded(raw: unknown, options: ModRuleCheckOptions): ModRuleCheck {
  // Structural validation, then one compilation that reports the select/regex/template/path
  // errors. Only an invalid structure takes the full validation, so that its errors are listed
  // together with the compile errors of the parts that could be read.
  const validation = validateModRule(raw, { semantic: false });
  if (!validation.ok) {
    const full = validateModRule(raw);
    const errors = full.ok ? validation.errors : full.errors;
    return { ok: false, key: keyOf(raw, options.defaultNamespace), errors };
  }
  try {
    const rule = compileRule(validation.modRule, options);
    return { ok: true, modRule: validation.modRule, rule };
  } catch (err) {
    if (err instanceof RuleCompileError) {
      return { ok: false, key: keyOf(raw, options.defaultNamespace), errors: err.errors };
    }
    throw err;
  }
}

/** `ModRule default/x is invalid: spec.match[0].select: …; spec.patch[1].value: …` */
export function describeInvalidModRule(key: string, errors: readonly FieldError[]): string {
  return `ModRule ${key} is invalid: ${formatFieldErrors(errors)}`;
}

/** `<namespace>/<name>` as far as the raw document tells (`<unnamed>` when it has no name). */
function keyOf(raw: unknown, defaultNamespace: string): string {
  const metadata =
    typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).metadata : undefined;
  const meta =
    typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>) : {};
  const namespace =
    typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : defaultNamespace;
  const name = typeof meta.name === 'string' && meta.name !== '' ? meta.name : '<unnamed>';
  return `${namespace}/${name}`;
}
