import { formatFieldErrors } from '../api/index.js';
import type { Compilers } from '../engine/compilers.js';
import type { JsonObject } from '../engine/json.js';
import { compileRule, RuleCompileError } from '../engine/rule.js';
import type { RuleStore } from '../engine/store.js';
import { validateModRule } from '../engine/validate-modrule.js';
import { unexpectedCompileError } from './compile-modrule.js';

/** The outcome of loading one ModRule, which the status writer turns into a `Ready` condition. */
export interface RuleLoadResult {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string | undefined;
  readonly generation: number | undefined;
  readonly ready: boolean;
  /** `Loaded`, `Invalid` or `CompileFailed`. */
  readonly reason: string;
  readonly message: string;
  /** The status the object carries now (so unchanged statuses are not rewritten). */
  readonly currentStatus: JsonObject | undefined;
}

export interface ModRuleLoadOptions {
  readonly store: RuleStore;
  readonly clusterNamespace: string;
  /** Shared compilers: identical selects, regexes and templates across rules compile once. */
  readonly compilers?: Compilers | undefined;
}

/** The identity and generation of a ModRule object (empty strings where missing). */
export function modRuleMeta(obj: JsonObject): {
  name: string;
  namespace: string;
  uid?: string;
  generation?: number;
} {
  const meta = (obj.metadata ?? {}) as {
    name?: unknown;
    namespace?: unknown;
    uid?: unknown;
    generation?: unknown;
  };
  return {
    name: typeof meta.name === 'string' ? meta.name : '',
    namespace: typeof meta.namespace === 'string' ? meta.namespace : '',
    ...(typeof meta.uid === 'string' ? { uid: meta.uid } : {}),
    ...(typeof meta.generation === 'number' ? { generation: meta.generation } : {}),
  };
}

/**
 * Validates and compiles one ModRule object into the store. An invalid rule is removed from the
 * store (so a broken update does not leave the previous version running) and reported.
 */
export function loadModRule(obj: JsonObject, options: ModRuleLoadOptions): RuleLoadResult {
  const meta = modRuleMeta(obj);
  const status = obj.status;
  const base = {
    namespace: meta.namespace,
    name: meta.name,
    uid: meta.uid,
    generation: meta.generation,
    currentStatus:
      typeof status === 'object' && status !== null && !Array.isArray(status) ? status : undefined,
  };
  // compileRule reports the select/regex/template/path errors, so validation is structural here.
  let validated: ReturnType<typeof validateModRule>;
  try {
    validated = validateModRule(obj, { semantic: false });
  } catch (err) {
    options.store.delete(meta.namespace, meta.name);
    return {
      ...base,
      ready: false,
      reason: 'Invalid',
      message: formatFieldErrors([unexpectedCompileError(err)]),
    };
  }
  if (!validated.ok) {
    options.store.delete(meta.namespace, meta.name);
    return {
      ...base,
      ready: false,
      reason: 'Invalid',
      message: formatFieldErrors(validated.errors),
    };
  }
  try {
    const compiled = compileRule(validated.modRule, {
      clusterNamespace: options.clusterNamespace,
      defaultNamespace: meta.namespace,
      compilers: options.compilers,
    });
    options.store.put(compiled);
    return { ...base, ready: true, reason: 'Loaded', message: 'The ModRule is loaded and active.' };
  } catch (err) {
    // Any error, not only RuleCompileError (a stack overflow compiling a 4,000-term select), is
    // this rule's own status: an invalid rule never stops the sync of the others.
    options.store.delete(meta.namespace, meta.name);
    return {
      ...base,
      ready: false,
      reason: 'CompileFailed',
      message: formatFieldErrors(
        err instanceof RuleCompileError ? err.errors : [unexpectedCompileError(err)],
      ),
    };
  }
}
