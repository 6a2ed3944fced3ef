import {
  enforcementOf,
  failurePolicyOf,
  type EnforcementMode,
  type RuleFailurePolicy,
} from '../api/annotations.js';
import type {
  AdmissionOperation,
  DefaultedModRule,
  FieldError,
  ModRuleType,
  PatchOp,
} from '../api/modrule-types.js';
import { compileMatch, MatchCompileError, type CompiledMatch } from './match/index.js';
import type { CompiledSelect } from './expr/index.js';
import { directCompilers, type Compilers } from './compilers.js';
import { compilePath, parseYamlValue, type CompiledPath } from './patch/index.js';
import type { JsonValue } from './json.js';
import type { CompiledTemplate } from './template/index.js';
import type { GoRegex } from './regex.js';
import { literalKinds } from './rule-analysis.js';
import { KubemodError } from '../errors/catalog.js';
import { activeMeter, charge, withMeter } from './active-meter.js';
import { WorkMeter } from './work-meter.js';
import { literalLookupErrors } from './cluster/literal-lookups.js';
import { compileTemplatedPath, isTemplated, type TemplatedPath } from './templated-parts.js';

/** Namespace whose ModRules are cluster-wide, as in KubeMod. */
export const DEFAULT_CLUSTER_NAMESPACE = 'kubemod-system';

export interface CompiledPatchOperation {
  readonly op: PatchOp;
  /** `spec.patch[i]`, for error messages. */
  readonly field: string;
  readonly select: CompiledSelect | undefined;
  readonly path: CompiledPath;
  /** Set when the path holds template actions: rendered per select item (`path` is its probe). */
  readonly pathTemplate?: TemplatedPath | undefined;
  readonly value: CompiledTemplate | undefined;
  /** Reads rendered value text as YAML; static values are read once when the rule is compiled. */
  readonly parseValue: (text: string) => JsonValue;
}

/** A ModRule compiled once on arrival; evaluation only runs its closures. */
export interface CompiledRule {
  /** `<namespace>/<name>` */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: ModRuleType;
  readonly tier: number;
  readonly operations: ReadonlySet<AdmissionOperation>;
  readonly match: CompiledMatch;
  readonly patch: readonly CompiledPatchOperation[];
  readonly rejectMessage: CompiledTemplate | undefined;
  /** Cluster-wide rules only: which objects the rule considers (see appliesTo in the store). */
  readonly scope: RuleScope;
  /** Kinds the rule can match at all (from literal `$.kind` criteria); undefined means any kind. */
  readonly kinds: readonly string[] | undefined;
  /**
   * What a matching Reject rule does (`api.kubemod.io/enforcement`): refuse the request (Enforce),
   * admit it with a warning (Warn) or admit it silently, counted (Audit). Enforce for Patch rules.
   */
  readonly enforcement: EnforcementMode;
  /**
   * What happens to a request the rule cannot be evaluated for (`api.kubemod.io/failure-policy`):
   * the rule is skipped (Ignore) or the request refused, naming the rule (Fail).
   */
  readonly failurePolicy: RuleFailurePolicy;
}

export type RuleScope =
  | { readonly kind: 'namespace'; readonly namespace: string }
  | {
      readonly kind: 'cluster';
      readonly clusterScoped: boolean;
      readonly namespaces: GoRegex | undefined;
    };

/** Every problem found while compiling a ModRule, each with its field path. */
export class RuleCompileError extends Error {
  constructor(readonly errors: readonly FieldError[]) {
    super(errors.map((e) => `${e.field}: ${e.message}`).join('; '));
    this.name = 'RuleCompileError';
  }
}

/**
 * Compiles a validated, defaulted ModRule: selects, regexes, templates and patch paths. Throws
 * RuleCompileError listing every problem. A rule without `metadata.namespace` goes to
 * `defaultNamespace`.
 */
export function compileRule(
  modRule: DefaultedModRule,
  options: CompileRuleOptions = {},
): CompiledRule {
  // Compilation runs on the webhook's event loop (validation, rule sync, dryrun), so it has a
  // budget too, in the units evaluation uses (about 100 ns each), sticky once over.
  const meter = new WorkMeter(
    { requestUnits: RULE_COMPILE_UNITS, requestMillis: 60_000 },
    undefined,
    'ModRule compilation',
  );
  return withMeter(meter, () => compileMetered(modRule, options));
}

/**
 * Work units one ModRule may spend to compile: about 60 ms on a 2-core VM, far more than real
 * rules need (a sidecar rule spends a few tens of thousands), so that no rule can stall the
 * webhook. Regexes, templates (including their first-render build) and static YAML values charge.
 */
export const RULE_COMPILE_UNITS = 600_000;

export interface CompileRuleOptions {
  readonly clusterNamespace?: string | undefined;
  readonly defaultNamespace?: string | undefined;
  /** Shared (interning) compilers; see cachingCompilers. */
  readonly compilers?: Compilers | undefined;
}

function compileMetered(modRule: DefaultedModRule, options: CompileRuleOptions): CompiledRule {
  const compilers = options.compilers ?? directCompilers();
  const clusterNamespace = options.clusterNamespace ?? DEFAULT_CLUSTER_NAMESPACE;
  const namespace = modRule.metadata.namespace ?? options.defaultNamespace ?? 'default';
  const { spec } = modRule;
  const errors: FieldError[] = [];
  const attempt = <T>(field: string | undefined, build: () => T): T | undefined => {
    try {
      return build();
    } catch (err) {
      if (err instanceof MatchCompileError) {
        for (const e of err.errors) errors.push(toFieldError(e, undefined));
        return undefined;
      }
      if (err instanceof KubemodError) {
        errors.push(toFieldError(err, field));
        return undefined;
      }
      // Last resort: a compiler that overflowed the stack or built a string past V8's limit
      // makes this field invalid, never the whole request or process.
      if (err instanceof RangeError) {
        const tooLarge = new KubemodError(
          'EXPR_LIMIT',
          `too large or too deeply nested to compile (${err.message})`,
        );
        errors.push(toFieldError(tooLarge, field ?? 'spec.match'));
        return undefined;
      }
      throw err;
    }
  };
  const match = attempt(undefined, () => compileMatch(spec.match, 'spec.match', compilers));
  const patch = (spec.patch ?? []).map((op, i) =>
    compilePatchOperation(op, `spec.patch[${i}]`, attempt, compilers),
  );
  const rejectMessage =
    spec.rejectMessage === undefined
      ? undefined
      : attempt('spec.rejectMessage', () => compilers.template(spec.rejectMessage ?? ''));
  const regexSource = spec.targetNamespaceRegex ?? '';
  const namespaces =
    regexSource === ''
      ? undefined
      : attempt('spec.targetNamespaceRegex', () => compilers.regex(regexSource));
  // A namespaced rule's literal lookups of other namespaces or cluster-scoped kinds can never be
  // answered: refused now, with a field error (computed ones fail when evaluated).
  errors.push(...literalLookupErrors(modRule, namespace, clusterNamespace));
  if (errors.length > 0 || match === undefined) throw new RuleCompileError(errors);
  const scope: RuleScope =
    namespace === clusterNamespace
      ? { kind: 'cluster', clusterScoped: regexSource === '' || regexSource === '.*', namespaces }
      : { kind: 'namespace', namespace };
  return {
    // join builds one flat string (a template literal would keep a concatenation of three).
    key: [namespace, modRule.metadata.name].join('/'),
    namespace,
    name: modRule.metadata.name,
    type: spec.type,
    tier: spec.executionTier,
    operations: operationSet(spec.admissionOperations),
    match,
    // slice: an exact-size array (filter's result keeps spare capacity; rules live long).
    patch: patch.filter((p): p is CompiledPatchOperation => p !== undefined).slice(),
    rejectMessage,
    scope,
    kinds: literalKinds(match),
    enforcement: spec.type === 'Reject' ? enforcementOf(modRule.metadata.annotations) : 'Enforce',
    failurePolicy: failurePolicyOf(modRule.metadata.annotations),
  };
}

/** Rules share one frozen set per combination of operations (there are at most 15). */
const operationSets = new Map<string, ReadonlySet<AdmissionOperation>>();

function operationSet(operations: readonly AdmissionOperation[]): ReadonlySet<AdmissionOperation> {
  const key = [...operations].sort().join(',');
  let set = operationSets.get(key);
  if (set === undefined) {
    set = new Set(operations);
    operationSets.set(key, set);
  }
  return set;
}

type Attempt = <T>(field: string | undefined, build: () => T) => T | undefined;

function compilePatchOperation(
  op: { op: PatchOp; select?: string | undefined; path: string; value?: string | undefined },
  field: string,
  attempt: Attempt,
  compilers: Compilers,
): CompiledPatchOperation | undefined {
  const select =
    op.select === undefined
      ? undefined
      : attempt(`${field}.select`, () => compilers.select(op.select ?? ''));
  const pathTemplate = isTemplated(op.path)
    ? attempt(`${field}.path`, () => compileTemplatedPath(op.path))
    : undefined;
  const path = attempt(`${field}.path`, () => {
    const compiled = pathTemplate?.probe ?? compilePath(op.path);
    const captured = select === undefined ? 0 : select.captureCount;
    if (compiled.maxPlaceholder >= captured) {
      const reason =
        op.select === undefined
          ? 'uses placeholder #' +
            String(compiled.maxPlaceholder) +
            ' but the operation has no select'
          : `uses placeholder #${String(compiled.maxPlaceholder)} but the select captures only ${String(captured)} index(es) (one per wildcard, filter, union, slice or ..)`;
      throw new KubemodError('PATCH_PLACEHOLDER', reason);
    }
    return compiled;
  });
  const value =
    op.value === undefined
      ? undefined
      : attempt(`${field}.value`, () => compilers.template(op.value ?? ''));
  const parseValue =
    value?.isStatic === true
      ? attempt(`${field}.value`, () => constantValue(compilers.staticValue(value.source)))
      : cachedYamlParser(64);
  if (path === undefined || parseValue === undefined) return undefined;
  if (isTemplated(op.path) && pathTemplate === undefined) return undefined;
  return { op: op.op, field, select, path, pathTemplate, value, parseValue };
}

function toFieldError(err: KubemodError, field: string | undefined): FieldError {
  const anchored = field === undefined ? err : err.atField(field);
  return { field: anchored.field ?? 'spec', message: anchored.rawMessage(), code: anchored.code };
}

/**
 * A small per-operation cache of parsed values: rendered values repeat across requests (names,
 * namespaces), and YAML parsing dominates the cost of a patch otherwise. Values are never
 * mutated after parsing (patch application copies what it inserts). A hit is charged the units
 * its parse was charged, so what a request spends does not depend on the requests before it.
 */
function cachedYamlParser(capacity: number): (text: string) => JsonValue {
  // Created on first use: most operations of a large rule set never see a request.
  let cache: Map<string, { readonly value: JsonValue; readonly units: number }> | undefined;
  return (text) => {
    const hit = cache?.get(text);
    if (hit !== undefined) {
      charge(hit.units);
      return hit.value;
    }
    const meter = activeMeter();
    const before = meter?.left;
    const parsed = parseYamlValue(text);
    if (text.length <= 4096 && meter !== undefined && before !== undefined) {
      cache ??= new Map();
      if (cache.size >= capacity) cache.clear();
      cache.set(text, { value: parsed, units: before - meter.left });
    }
    return parsed;
  };
}

/** A static value's parser, made here so that the closure keeps only the value alive. */
function constantValue(parsed: JsonValue): () => JsonValue {
  return () => parsed;
}
