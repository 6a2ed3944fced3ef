/** Abstract syntax of KubeMod's select language (JSONPath extended with operators and functions). */

export type Expr =
  | { readonly type: 'literal'; readonly value: LiteralValue }
  | { readonly type: 'array'; readonly items: readonly Expr[] }
  | { readonly type: 'object'; readonly entries: readonly (readonly [string, Expr])[] }
  | { readonly type: 'path'; readonly root: 'root' | 'current'; readonly steps: readonly Step[] }
  | { readonly type: 'unary'; readonly op: '!' | '-'; readonly operand: Expr }
  | { readonly type: 'binary'; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr }
  | { readonly type: 'ternary'; readonly test: Expr; readonly then: Expr; readonly otherwise: Expr }
  | { readonly type: 'call'; readonly name: string; readonly args: readonly Expr[] };

export type LiteralValue = string | number | boolean | null;

export type BinaryOp =
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | '=~'
  | '!~'
  | '&&'
  | '||'
  | '??'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | 'in';

/**
 * One step of a path. `member` and `index` select one child; the others select many and so make
 * the path multi-valued, and each of them captures the key it selected (the `#0`, `#1` … indexes
 * patch paths refer to).
 */
export type Step =
  | { readonly type: 'member'; readonly name: string }
  | { readonly type: 'index'; readonly index: number }
  | { readonly type: 'wildcard' }
  | { readonly type: 'union'; readonly keys: readonly (string | number)[] }
  | {
      readonly type: 'slice';
      readonly start: number | undefined;
      readonly end: number | undefined;
      readonly step: number | undefined;
    }
  | { readonly type: 'filter'; readonly predicate: Expr }
  | { readonly type: 'descend'; readonly then: Step };

export function isMultiStep(step: Step): boolean {
  return step.type !== 'member' && step.type !== 'index';
}

/**
 * The size of an expression: its nodes plus the steps of its paths, counted without recursion.
 * Evaluating an expression once costs work in proportion to this (apart from the data it walks,
 * which the walkers charge themselves), so filters charge it for every element they test.
 */
export function exprWeight(expr: Expr): number {
  let weight = 0;
  const pending: Expr[] = [expr];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    weight++;
    switch (next.type) {
      case 'literal':
        break;
      case 'array':
        for (const item of next.items) pending.push(item);
        break;
      case 'object':
        for (const [, value] of next.entries) pending.push(value);
        break;
      case 'path':
        weight += next.steps.length;
        for (const step of next.steps) {
          const inner = step.type === 'descend' ? step.then : step;
          if (inner.type === 'filter') pending.push(inner.predicate);
        }
        break;
      case 'unary':
        pending.push(next.operand);
        break;
      case 'binary':
        pending.push(next.left, next.right);
        break;
      case 'ternary':
        pending.push(next.test, next.then, next.otherwise);
        break;
      case 'call':
        for (const arg of next.args) pending.push(arg);
        break;
    }
  }
  return weight;
}

/** True for exactly `$.kind`: rules whose criteria test it can be indexed by kind. */
export function isKindPath(expr: Expr): boolean {
  if (expr.type !== 'path' || expr.root !== 'root' || expr.steps.length !== 1) return false;
  const [step] = expr.steps;
  return step?.type === 'member' && step.name === 'kind';
}

/** Number of indexes a patch select captures: one per multi-valued step of its top-level path. */
export function captureCount(expr: Expr): number {
  if (expr.type !== 'path') return 0;
  return expr.steps.filter((step) => step.type !== 'member' && step.type !== 'index').length;
}
