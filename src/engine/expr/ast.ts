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
