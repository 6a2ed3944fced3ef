import { exprWeight, type BinaryOp, type Expr, type Step } from './ast.js';
import { builtinFunctions, type BuiltinFunction } from './functions.js';
import { compilePath, type CompiledPath, type Filter } from './path.js';
import { DateValue, deepEqual, isObject, typeName } from './values.js';
import { compileRegex, RegexCache, type GoRegex } from '../regex.js';
import { goFormat } from '../go-format.js';
import { charge, chargeBytes } from '../active-meter.js';
import { KubemodError } from '../../errors/catalog.js';

/** Longest string the `+` operator builds (1 MiB of UTF-16 code units). */
export const MAX_STRING_LENGTH = 1 << 20;

/** What an expression sees: the document root (`$`) and the element a filter is looking at (`@`). */
export interface Scope {
  readonly root: unknown;
  readonly current: unknown;
}

export type Evaluator = (scope: Scope) => unknown;

export interface CompiledExpression {
  readonly evaluate: Evaluator;
  /** Present when the whole expression is a path: lets callers get every value with its captures. */
  readonly path: { readonly root: 'root' | 'current'; readonly compiled: CompiledPath } | undefined;
}

/** Compiles a syntax tree into closures once; evaluation then never re-inspects the tree. */
export function compileExpression(expr: Expr): CompiledExpression {
  const compiler = new Compiler();
  const evaluate = compiler.compile(expr);
  const path =
    expr.type === 'path' ? { root: expr.root, compiled: compiler.pathOf(expr) } : undefined;
  compiler.finish();
  return { evaluate, path };
}

/**
 * Closures that refer to `this` keep the compiler alive as long as the compiled expression, so
 * what only compilation needs is dropped by `finish()` and the rest is created on first need.
 */
class Compiler {
  private functions: ReadonlyMap<string, BuiltinFunction> | undefined;
  private regexCache: RegexCache | undefined;
  /** Compiled paths by syntax node, while compiling (it would keep the whole tree alive). */
  private paths: Map<Expr, CompiledPath> | undefined = new Map();

  finish(): void {
    this.paths = undefined;
    this.functions = undefined;
  }

  compile(expr: Expr): Evaluator {
    switch (expr.type) {
      case 'literal': {
        const value = expr.value;
        return () => value;
      }
      case 'array': {
        const items = expr.items.map((item) => this.compile(item));
        return (scope) => {
          charge(items.length);
          return items.map((item) => item(scope));
        };
      }
      case 'object': {
        const entries = expr.entries.map(([key, value]) => [key, this.compile(value)] as const);
        return (scope) => {
          charge(entries.length);
          return Object.fromEntries(entries.map(([key, value]) => [key, value(scope)]));
        };
      }
      case 'path':
        return this.compilePathExpr(expr);
      case 'unary':
        return this.compileUnary(expr.op, this.compile(expr.operand));
      case 'binary':
        return this.compileBinary(expr.op, expr.left, expr.right);
      case 'ternary': {
        const test = this.compile(expr.test);
        const then = this.compile(expr.then);
        const otherwise = this.compile(expr.otherwise);
        return (scope) => (test(scope) === true ? then(scope) : otherwise(scope));
      }
      case 'call':
        return this.compileCall(expr.name, expr.args);
    }
  }

  pathOf(expr: Expr & { type: 'path' }): CompiledPath {
    const cached = this.paths?.get(expr);
    if (cached !== undefined) return cached;
    const filters = new Map<Step, Filter>();
    collectFilters(expr.steps, (step, predicate) => {
      const test = this.compile(predicate);
      filters.set(step, {
        test: (current, root) => test({ root, current }) === true,
        weight: exprWeight(predicate),
      });
    });
    const compiled = compilePath(expr.steps, filters);
    this.paths?.set(expr, compiled);
    return compiled;
  }

  private compilePathExpr(expr: Expr & { type: 'path' }): Evaluator {
    const path = this.pathOf(expr);
    const fromRoot = expr.root === 'root';
    if (!path.multi) return (scope) => path.single(fromRoot ? scope.root : scope.current);
    return (scope) =>
      path
        .collect(fromRoot ? scope.root : scope.current, scope.root, false)
        .nodes.map((node) => node.value);
  }

  private compileUnary(op: '!' | '-', operand: Evaluator): Evaluator {
    if (op === '!') {
      return (scope) => {
        const value = operand(scope);
        if (typeof value !== 'boolean') throw operandError('!', value, 'a boolean');
        return !value;
      };
    }
    return (scope) => {
      const value = operand(scope);
      if (value === undefined) return undefined;
      if (typeof value !== 'number') throw operandError('-', value, 'a number');
      return -value;
    };
  }

  private compileBinary(op: BinaryOp, leftExpr: Expr, rightExpr: Expr): Evaluator {
    const left = this.compile(leftExpr);
    if (
      (op === '=~' || op === '!~') &&
      rightExpr.type === 'literal' &&
      typeof rightExpr.value === 'string'
    ) {
      const regex = compileRegex(rightExpr.value);
      return regexOperator(op, left, () => regex);
    }
    const right = this.compile(rightExpr);
    switch (op) {
      case '&&':
        return (scope) => {
          const a = requireBoolean('&&', left(scope));
          return a ? requireBoolean('&&', right(scope)) : false;
        };
      case '||':
        return (scope) => {
          const a = requireBoolean('||', left(scope));
          return a ? true : requireBoolean('||', right(scope));
        };
      case '??':
        return (scope) => {
          const a = left(scope);
          return a === undefined || a === null ? right(scope) : a;
        };
      case '==':
        return (scope) => deepEqual(left(scope), right(scope));
      case '!=':
        return (scope) => {
          const a = left(scope);
          const b = right(scope);
          return a !== undefined && b !== undefined && !deepEqual(a, b);
        };
      case '<':
      case '<=':
      case '>':
      case '>=':
        return (scope) => compareValues(op, left(scope), right(scope));
      case '=~':
      case '!~':
        return regexOperator(op, left, (scope) => {
          const pattern = right(scope);
          if (typeof pattern !== 'string') throw operandError(op, pattern, 'a string pattern');
          this.regexCache ??= new RegexCache(32);
          return this.regexCache.get(pattern);
        });
      case 'in':
        return (scope) => {
          const needle = left(scope);
          const haystack = right(scope);
          if (needle === undefined || haystack === undefined) return false;
          if (!Array.isArray(haystack)) throw operandError('in', haystack, 'an array on its right');
          charge(1 + haystack.length);
          for (const item of haystack) if (deepEqual(needle, item)) return true;
          return false;
        };
      case '+':
      case '-':
      case '*':
      case '/':
      case '%':
        return (scope) => arithmetic(op, left(scope), right(scope));
    }
  }

  private compileCall(name: string, argExprs: readonly Expr[]): Evaluator {
    this.functions ??= builtinFunctions();
    const fn = this.functions.get(name);
    if (fn === undefined) {
      throw new KubemodError(
        'EXPR_FUNCTION',
        `unknown function ${name}(); known functions: ${[...this.functions.keys()].join(', ')}`,
      );
    }
    if (argExprs.length !== fn.arity) {
      throw new KubemodError(
        'EXPR_FUNCTION',
        `${name}() takes ${fn.arity} argument(s), got ${argExprs.length}`,
      );
    }
    const args = argExprs.map((arg) => this.compile(arg));
    return (scope) => fn.call(args.map((arg) => arg(scope)));
  }
}

function collectFilters(
  steps: readonly Step[],
  visit: (step: Step, predicate: Expr) => void,
): void {
  for (const step of steps) {
    if (step.type === 'filter') visit(step, step.predicate);
    if (step.type === 'descend') collectFilters([step.then], visit);
  }
}

function operandError(op: string, value: unknown, expected: string): KubemodError {
  return new KubemodError(
    'EXPR_TYPE',
    `operator ${op} expects ${expected}, got ${typeName(value)}`,
  );
}

function requireBoolean(op: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw operandError(op, value, 'boolean operands');
  return value;
}

function regexOperator(
  op: '=~' | '!~',
  left: Evaluator,
  regexOf: (scope: Scope) => GoRegex,
): Evaluator {
  return (scope) => {
    const value = left(scope);
    if (value === undefined) return false;
    const text = typeof value === 'string' ? value : goFormat(value);
    // RE2 matches in linear time: charge the input it reads.
    chargeBytes(text.length);
    const matched = regexOf(scope).test(text);
    return op === '=~' ? matched : !matched;
  };
}

/** Ordering: numbers with numbers, strings with strings, dates with dates; anything else is false. */
function compareValues(op: '<' | '<=' | '>' | '>=', a: unknown, b: unknown): boolean {
  let x: number | string;
  let y: number | string;
  if (typeof a === 'number' && typeof b === 'number') [x, y] = [a, b];
  else if (typeof a === 'string' && typeof b === 'string') [x, y] = [a, b];
  else if (a instanceof DateValue && b instanceof DateValue) [x, y] = [a.ms, b.ms];
  else return false;
  switch (op) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    case '>=':
      return x >= y;
  }
}

function arithmetic(op: '+' | '-' | '*' | '/' | '%', a: unknown, b: unknown): unknown {
  if (a === undefined || b === undefined) return undefined;
  if (typeof a === 'number' && typeof b === 'number') {
    switch (op) {
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        return a / b;
      case '%':
        return a % b;
    }
  }
  if (
    op === '+' &&
    (typeof a === 'string' || typeof b === 'string') &&
    !isObject(a) &&
    !isObject(b)
  ) {
    return concatenate(goFormat(a), goFormat(b));
  }
  throw new KubemodError(
    'EXPR_TYPE',
    `operator ${op} cannot combine ${typeName(a)} and ${typeName(b)}`,
  );
}

/** String `+`: charged by the length built, and refused past MAX_STRING_LENGTH. */
function concatenate(a: string, b: string): string {
  const length = a.length + b.length;
  if (length > MAX_STRING_LENGTH) {
    throw new KubemodError(
      'EXPR_LIMIT',
      `operator + would build a string of ${String(length)} characters, over the ${String(MAX_STRING_LENGTH)} limit`,
    );
  }
  chargeBytes(length);
  return a + b;
}
