/** The parsed form of a Go text/template, before translation to a handlebars AST. */

export type Expr =
  | { readonly kind: 'dot' }
  /** `$` (the root data) or a declared variable such as `$x`. */
  | { readonly kind: 'variable'; readonly name: string }
  /** Field chain on any operand: `.a.b` (on dot), `$x.a`, `(pipeline).a`, `.#0.a`. */
  | { readonly kind: 'chain'; readonly base: Expr; readonly names: readonly string[] }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'nil' }
  /** KubeMod's `.#N`: the N-th captured select key, `index $.SelectKeyParts N`. */
  | { readonly kind: 'selectKey'; readonly index: bigint }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Expr[] }
  /**
   * A command's value as a pipeline passes it on (a parenthesised pipeline, or the input of the
   * next stage): Go takes it out of its interface{}, so a nil becomes no value at all.
   */
  | { readonly kind: 'dig'; readonly inner: Expr };

export interface Declaration {
  readonly names: readonly string[];
  /** `=` (assign to an existing variable) rather than `:=`. */
  readonly assign: boolean;
}

export interface Pipeline {
  readonly decl: Declaration | undefined;
  /** The whole pipeline folded into one expression: `a | f b` becomes `f b a`. */
  readonly expr: Expr;
}

export type TemplateNode =
  | { readonly kind: 'text'; readonly value: string }
  | { readonly kind: 'action'; readonly pipe: Pipeline; readonly source: string }
  | {
      readonly kind: 'if' | 'with' | 'range';
      readonly pipe: Pipeline;
      readonly source: string;
      readonly body: readonly TemplateNode[];
      readonly elseBody: readonly TemplateNode[] | undefined;
    };
