/**
 * Builders for the handlebars AST (the shapes `Handlebars.parse` produces and `compile` accepts).
 * Every node carries a `loc` whose `source` is the template fragment it came from, so helpers can
 * name the failing fragment (handlebars hands `loc` to helpers as `options.loc`).
 */
export interface HbsLoc {
  readonly source: string;
  readonly start: { readonly line: number; readonly column: number };
  readonly end: { readonly line: number; readonly column: number };
}

export interface HbsNode {
  readonly type: string;
  readonly loc?: HbsLoc | undefined;
  readonly [key: string]: unknown;
}

const NO_STRIP = Object.freeze({ open: false, close: false });

export function hbsLoc(source: string): HbsLoc {
  return { source, start: { line: 1, column: 0 }, end: { line: 1, column: 0 } };
}

export function hbsProgram(body: readonly HbsNode[], blockParams?: readonly string[]): HbsNode {
  return {
    type: 'Program',
    body: [...body],
    blockParams: blockParams === undefined ? undefined : [...blockParams],
    strip: {},
  };
}

export function hbsContent(value: string): HbsNode {
  return { type: 'ContentStatement', value, original: value };
}

export function hbsPath(name: string, loc?: HbsLoc): HbsNode {
  return { type: 'PathExpression', data: false, depth: 0, parts: [name], original: name, loc };
}

export function hbsThis(loc?: HbsLoc): HbsNode {
  return { type: 'PathExpression', data: false, depth: 0, parts: [], original: 'this', loc };
}

export function hbsRoot(loc?: HbsLoc): HbsNode {
  return { type: 'PathExpression', data: true, depth: 0, parts: ['root'], original: '@root', loc };
}

export function hbsString(value: string, loc?: HbsLoc): HbsNode {
  return { type: 'StringLiteral', value, original: value, loc };
}

export function hbsNumber(value: number, loc?: HbsLoc): HbsNode {
  if (!Number.isFinite(value)) throw new RangeError('handlebars number literals must be finite');
  return { type: 'NumberLiteral', value, original: value, loc };
}

export function hbsBoolean(value: boolean, loc?: HbsLoc): HbsNode {
  return { type: 'BooleanLiteral', value, original: value, loc };
}

export function hbsNull(loc?: HbsLoc): HbsNode {
  return { type: 'NullLiteral', value: null, original: null, loc };
}

export function hbsCall(helper: string, params: readonly HbsNode[], loc: HbsLoc): HbsNode {
  return {
    type: 'SubExpression',
    path: hbsPath(helper, loc),
    params: [...params],
    hash: undefined,
    loc,
  };
}

export function hbsMustache(helper: string, params: readonly HbsNode[], loc: HbsLoc): HbsNode {
  return {
    type: 'MustacheStatement',
    path: hbsPath(helper, loc),
    params: [...params],
    hash: undefined,
    escaped: false,
    strip: NO_STRIP,
    loc,
  };
}

export function hbsBlock(
  helper: string,
  params: readonly HbsNode[],
  program: HbsNode,
  inverse: HbsNode | undefined,
  loc: HbsLoc,
): HbsNode {
  return {
    type: 'BlockStatement',
    path: hbsPath(helper, loc),
    params: [...params],
    hash: undefined,
    program,
    inverse,
    openStrip: NO_STRIP,
    inverseStrip: NO_STRIP,
    closeStrip: NO_STRIP,
    loc,
  };
}
