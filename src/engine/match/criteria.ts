import { compileSelect, type CompiledSelect } from '../expr/index.js';
import { compileRegex, type GoRegex } from '../regex.js';
import { goFormat } from '../go-format.js';
import { KubemodError } from '../../errors/catalog.js';
import type { MatchFor, MatchItemSpec } from '../../api/modrule-types.js';
import type { MatchTracer } from './match-tracer.js';

export interface CompiledMatchItem {
  readonly spec: MatchItemSpec;
  readonly select: CompiledSelect;
  /**
   * Whether the item matches the object. Throws EXPR_TYPE when the select fails on this object.
   * Reports how it decided to `trace`, when given.
   */
  matches(object: unknown, trace?: MatchTracer): boolean;
}

/**
 * Compiles a criteria item once. Errors name the field: `select`, `matchRegex` or `matchFor`
 * (relative to the item; callers prefix the item's own path).
 */
export function compileMatchItem(
  spec: MatchItemSpec,
  compilers: { select: (source: string) => CompiledSelect; regex: (pattern: string) => GoRegex } = {
    select: compileSelect,
    regex: compileRegex,
  },
): CompiledMatchItem {
  const select = atField('select', () => compilers.select(spec.select));
  const regex =
    spec.matchRegex === undefined
      ? undefined
      : atField('matchRegex', () => compilers.regex(spec.matchRegex ?? ''));
  const matchFor: string = spec.matchFor ?? 'Any';
  if (matchFor !== 'Any' && matchFor !== 'All') {
    throw new KubemodError(
      'MODRULE_INVALID',
      `unknown matchFor ${JSON.stringify(matchFor)}; use Any or All`,
      'matchFor',
    );
  }
  return compiledItem(spec, select, matchFor, valuePredicate(spec, regex), spec.negate === true);
}

/** Kept apart so the closure retains only what it uses (rules are held for the process' life). */
function compiledItem(
  spec: MatchItemSpec,
  select: CompiledSelect,
  matchFor: MatchFor,
  accepts: ((text: string) => boolean) | undefined,
  negate: boolean,
): CompiledMatchItem {
  return {
    spec,
    select,
    matches: (object, trace) => evaluate(select, object, matchFor, accepts, negate, trace),
  };
}

function atField<T>(field: string, compile: () => T): T {
  try {
    return compile();
  } catch (err) {
    if (err instanceof KubemodError) throw err.atField(field);
    // Last resort (the compilers bound their own nesting): a stack overflow is this field's error.
    if (err instanceof RangeError) {
      throw new KubemodError(
        'EXPR_LIMIT',
        `too large or too deeply nested to compile (${err.message})`,
        field,
      );
    }
    throw err;
  }
}

/**
 * The outcome, then `negate`: a single boolean result decides; no values never match; `All`
 * fails when any element was undefined; otherwise every value is printed as Go's `%v` does and
 * tested against matchValue, matchValues and matchRegex (each one that is set must accept it).
 * Each way out reports its decision to `trace` (`trace?.` evaluates nothing without a tracer).
 */
function evaluate(
  select: CompiledSelect,
  object: unknown,
  matchFor: MatchFor,
  accepts: ((text: string) => boolean) | undefined,
  negate: boolean,
  trace: MatchTracer | undefined,
): boolean {
  const outcome = select.outcome(object);
  if (outcome.kind === 'boolean') {
    trace?.matchItem(outcome, 'boolean', -1, outcome.value !== negate);
    return outcome.value !== negate;
  }
  const { values } = outcome;
  if (values.length === 0) {
    trace?.matchItem(outcome, 'no-values', -1, negate);
    return negate;
  }
  if (accepts === undefined) {
    const exists = matchFor === 'Any' || outcome.undefinedCount === 0;
    trace?.matchItem(outcome, exists ? 'exists' : 'undefined-element', -1, exists !== negate);
    return exists !== negate;
  }
  if (matchFor === 'Any') {
    for (let i = 0; i < values.length; i++) {
      if (accepts(goFormat(values[i]))) {
        trace?.matchItem(outcome, 'value-accepted', i, !negate);
        return !negate;
      }
    }
    trace?.matchItem(outcome, 'none-accepted', -1, negate);
    return negate;
  }
  if (outcome.undefinedCount > 0) {
    trace?.matchItem(outcome, 'undefined-element', -1, negate);
    return negate;
  }
  for (let i = 0; i < values.length; i++) {
    if (!accepts(goFormat(values[i]))) {
      trace?.matchItem(outcome, 'value-refused', i, negate);
      return negate;
    }
  }
  trace?.matchItem(outcome, 'all-accepted', -1, !negate);
  return !negate;
}

function valuePredicate(
  spec: MatchItemSpec,
  regex: GoRegex | undefined,
): ((text: string) => boolean) | undefined {
  const { matchValue, matchValues } = spec;
  const checks: ((text: string) => boolean)[] = [];
  if (matchValue !== undefined) checks.push(equalTo(matchValue));
  if (matchValues !== undefined && matchValues.length > 0) checks.push(oneOf(new Set(matchValues)));
  if (regex !== undefined) checks.push(matching(regex));
  if (checks.length <= 1) return checks[0];
  return allOf(checks);
}

// One factory per predicate, so that each closure keeps only its own value alive.
function equalTo(expected: string): (text: string) => boolean {
  return (text) => text === expected;
}

function oneOf(allowed: ReadonlySet<string>): (text: string) => boolean {
  return (text) => allowed.has(text);
}

function matching(regex: GoRegex): (text: string) => boolean {
  return (text) => regex.test(text);
}

function allOf(checks: readonly ((text: string) => boolean)[]): (text: string) => boolean {
  return (text) => checks.every((check) => check(text));
}
