import { captureCount, isKindPath, type Expr } from './ast.js';
import { compileExpression, type CompiledExpression } from './compile.js';
import { parseExpression } from './parser.js';
import { quoteSource } from './lexer.js';
import { KubemodError } from '../../errors/catalog.js';

/** What a select yields for matching: a single boolean decides on its own; otherwise a value list. */
export type SelectOutcome =
  | { readonly kind: 'boolean'; readonly value: boolean }
  | {
      readonly kind: 'values';
      readonly values: readonly unknown[];
      /** Elements of a multi-valued path that were undefined (and so filtered out of `values`). */
      readonly undefinedCount: number;
    };

/** One result of a patch select: the selected value and the keys its wildcards/filters captured. */
export interface SelectItem {
  readonly value: unknown;
  readonly keyParts: readonly (string | number)[];
}

export interface CompiledSelect {
  readonly source: string;
  /**
   * What rule compilation needs to know of the syntax tree, which is not kept (compiled selects
   * live as long as their rules): whether the select is exactly `$.kind`, and how many indexes
   * it captures for patch path placeholders.
   */
  readonly isKindPath: boolean;
  readonly captureCount: number;
  /** The raw value of the expression; multi-valued paths give an array of their defined values. */
  evaluate(root: unknown): unknown;
  /** The outcome a match criteria item works with. */
  outcome(root: unknown): SelectOutcome;
  /** The results a patch operation iterates over, with their captured keys. */
  items(root: unknown): SelectItem[];
}

/**
 * Parses and compiles a select expression once. Throws a catalogued KubemodError (EXPR_SYNTAX,
 * EXPR_FUNCTION, EXPR_LIMIT or REGEX_INVALID) when the expression cannot be compiled, and nothing
 * else. Evaluation throws only catalogued errors: EXPR_TYPE (e.g. `&&` applied to a string),
 * EXPR_LIMIT, WORK_LIMIT or DEPTH_LIMIT, which make the rule fail for that request.
 */
export function compileSelect(source: string): CompiledSelect {
  let ast: Expr;
  let compiled: CompiledExpression;
  try {
    ast = parseExpression(source);
    compiled = compileExpression(ast);
  } catch (err) {
    // The parser bounds nesting, so this is a last resort: never let a stack overflow escape.
    if (err instanceof RangeError) {
      throw new KubemodError(
        'EXPR_LIMIT',
        `select ${quoteSource(source)} is too large or too deeply nested to compile`,
        undefined,
        { cause: err },
      );
    }
    throw err;
  }
  return {
    source,
    isKindPath: isKindPath(ast),
    captureCount: captureCount(ast),
    // Plain try/catch rather than a guard taking a closure: these run for every rule and request.
    evaluate: (root) => {
      try {
        return compiled.evaluate({ root, current: root });
      } catch (err) {
        throw guarded(source, err);
      }
    },
    outcome: (root) => {
      try {
        return outcomeOf(compiled, root);
      } catch (err) {
        throw guarded(source, err);
      }
    },
    items: (root) => {
      try {
        return itemsOf(compiled, root);
      } catch (err) {
        throw guarded(source, err);
      }
    },
  };
}

function outcomeOf(compiled: CompiledExpression, root: unknown): SelectOutcome {
  const path = compiled.path;
  if (path?.compiled.multi === true) {
    const result = path.compiled.collect(root, root, false);
    return {
      kind: 'values',
      values: result.nodes.map((n) => n.value),
      undefinedCount: result.undefinedCount,
    };
  }
  const value = compiled.evaluate({ root, current: root });
  if (typeof value === 'boolean') return { kind: 'boolean', value };
  if (value === undefined) return { kind: 'values', values: [], undefinedCount: 1 };
  // Like Go's []interface{}, an array value is the list of values itself.
  if (Array.isArray(value)) return { kind: 'values', values: value, undefinedCount: 0 };
  return { kind: 'values', values: [value], undefinedCount: 0 };
}

function itemsOf(compiled: CompiledExpression, root: unknown): SelectItem[] {
  const path = compiled.path;
  if (path !== undefined) {
    if (!path.compiled.multi) {
      const value = path.compiled.single(root);
      return value === undefined ? [] : [{ value, keyParts: [] }];
    }
    return path.compiled
      .collect(root, root, true)
      .nodes.map((node) => ({ value: node.value, keyParts: node.captures }));
  }
  const value = compiled.evaluate({ root, current: root });
  if (value === undefined || value === false) return [];
  return [{ value, keyParts: [] }];
}

/** Evaluation must never throw anything but a catalogued error, whatever the document holds. */
function guarded(source: string, err: unknown): unknown {
  if (err instanceof KubemodError) {
    // Keeps the kind: WORK_LIMIT and DEPTH_LIMIT stay what they are.
    return new KubemodError(err.kind, `select ${quoteSource(source)}: ${err.message}`, undefined, {
      cause: err,
    });
  }
  if (err instanceof RangeError) {
    // A stack overflow or a string past V8's maximum length.
    return new KubemodError(
      'EXPR_LIMIT',
      `select ${quoteSource(source)}: evaluation too deep or too large (${err.message})`,
      undefined,
      { cause: err },
    );
  }
  return err;
}
