import type { Declaration, Expr, Pipeline, TemplateNode } from './go-ast.js';
import type { Segment, Token } from './go-lexer.js';
import { parseError } from './faults.js';

type ActionSegment = Extract<Segment, { kind: 'action' }>;
type Control = 'if' | 'with' | 'range';

/** What ended a list: end of input, `{{end}}`, or `{{else …}}` (with the tokens after `else`). */
type ListEnd =
  { kind: 'eof' } | { kind: 'end' } | { kind: 'else'; rest: readonly Token[]; source: string };

/** Recursive-descent parser for Go text/template actions, checking functions and variables like Go does. */
export class GoTemplateParser {
  private index = 0;
  private readonly scopes: string[][] = [['$']];

  constructor(
    private readonly segments: readonly Segment[],
    private readonly functions: ReadonlySet<string>,
  ) {}

  parse(): TemplateNode[] {
    const { nodes, end } = this.parseList();
    if (end.kind === 'end') throw parseError('unexpected {{end}}');
    if (end.kind === 'else') throw parseError(`unexpected ${end.source}`);
    return nodes;
  }

  private parseList(): { nodes: TemplateNode[]; end: ListEnd } {
    const nodes: TemplateNode[] = [];
    while (this.index < this.segments.length) {
      const seg = this.segments[this.index];
      this.index += 1;
      if (seg === undefined) break;
      if (seg.kind === 'text') {
        nodes.push({ kind: 'text', value: seg.value });
        continue;
      }
      const first = seg.tokens[0];
      if (first === undefined) throw parseError(`missing value for command at ${seg.source}`);
      if (first.kind === 'keyword') {
        switch (first.value) {
          case 'end':
            this.expectEnd(seg, 1);
            return { nodes, end: { kind: 'end' } };
          case 'else':
            return { nodes, end: { kind: 'else', rest: seg.tokens.slice(1), source: seg.source } };
          case 'if':
          case 'with':
          case 'range':
            nodes.push(this.parseControl(first.value, seg.tokens.slice(1), seg.source));
            continue;
          default:
            throw parseError(`{{${first.value}}} is not supported at ${seg.source}`);
        }
      }
      const pipe = new ActionParser(seg.tokens, seg.source, this).pipeline(false);
      nodes.push({ kind: 'action', pipe, source: seg.source });
    }
    return { nodes, end: { kind: 'eof' } };
  }

  private parseControl(kind: Control, tokens: readonly Token[], source: string): TemplateNode {
    // Variables declared in an if/with pipeline are visible in both branches; range variables only in the body.
    this.scopes.push([]);
    try {
      const pipe = new ActionParser(tokens, source, this).pipeline(kind === 'range');
      const { nodes: body, end } = this.scoped(() => this.parseList());
      if (kind === 'range') this.scopes[this.scopes.length - 1] = [];
      if (end.kind === 'eof') throw parseError(`unexpected EOF: missing {{end}} for ${source}`);
      if (end.kind === 'end') return { kind, pipe, source, body, elseBody: undefined };
      const next = end.rest[0];
      if (next === undefined) {
        const { nodes: elseBody, end: elseEnd } = this.scoped(() => this.parseList());
        if (elseEnd.kind !== 'end') throw parseError(`expected {{end}} after ${end.source}`);
        return { kind, pipe, source, body, elseBody };
      }
      if (next.kind === 'keyword' && (next.value === 'if' || next.value === 'with')) {
        // `{{else if x}}` is `{{else}}{{if x}}…{{end}}{{end}}` sharing one {{end}}.
        const chained = this.scoped(() =>
          this.parseControl(next.value === 'if' ? 'if' : 'with', end.rest.slice(1), end.source),
        );
        return { kind, pipe, source, body, elseBody: [chained] };
      }
      throw parseError(`unexpected ${end.source}`);
    } finally {
      this.scopes.pop();
    }
  }

  private scoped<T>(parse: () => T): T {
    this.scopes.push([]);
    try {
      return parse();
    } finally {
      this.scopes.pop();
    }
  }

  private expectEnd(seg: ActionSegment, count: number): void {
    if (seg.tokens.length > count) throw parseError(`unexpected tokens in ${seg.source}`);
  }

  hasFunction(name: string): boolean {
    return this.functions.has(name);
  }

  declare(name: string): void {
    const scope = this.scopes[this.scopes.length - 1];
    if (scope !== undefined) scope.push(name);
  }

  isDeclared(name: string): boolean {
    return this.scopes.some((scope) => scope.includes(name));
  }
}

/** Parses the tokens of one action into a pipeline. */
class ActionParser {
  private pos = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly source: string,
    private readonly owner: GoTemplateParser,
  ) {}

  pipeline(allowTwoVariables: boolean): Pipeline {
    const decl = this.declaration(allowTwoVariables);
    const expr = this.commands();
    if (this.pos < this.tokens.length)
      throw this.error(`unexpected ${this.describe(this.tokens[this.pos])}`);
    if (decl !== undefined) {
      for (const name of decl.names) {
        if (decl.assign && !this.owner.isDeclared(name))
          throw this.error(`undefined variable "${name}"`);
        if (!decl.assign) this.owner.declare(name);
      }
    }
    return { decl, expr };
  }

  private declaration(allowTwo: boolean): Declaration | undefined {
    const [a, b, c, d] = this.tokens.slice(this.pos, this.pos + 4);
    if (a?.kind !== 'variable') return undefined;
    if (b?.kind === 'declare' || b?.kind === 'assign') {
      this.pos += 2;
      return { names: [a.value], assign: b.kind === 'assign' };
    }
    if (
      b?.kind === 'comma' &&
      c?.kind === 'variable' &&
      (d?.kind === 'declare' || d?.kind === 'assign')
    ) {
      if (!allowTwo) throw this.error('too many declarations');
      this.pos += 4;
      return { names: [a.value, c.value], assign: d.kind === 'assign' };
    }
    return undefined;
  }

  /** `cmd | cmd | cmd`, folding each stage's input in as the last argument of the next. */
  private commands(): Expr {
    let expr = this.command();
    while (this.peek()?.kind === 'pipe') {
      this.pos += 1;
      const next = this.command();
      if (next.kind !== 'call') throw this.error('non executable command in pipeline stage');
      expr = { kind: 'call', name: next.name, args: [...next.args, dug(expr)] };
    }
    return expr;
  }

  private command(): Expr {
    const operands: Expr[] = [];
    const heads: Token[] = [];
    for (;;) {
      const token = this.peek();
      if (token === undefined || token.kind === 'pipe' || token.kind === 'rparen') break;
      heads.push(token);
      operands.push(this.operand());
    }
    const [first, ...rest] = operands;
    if (first === undefined) throw this.error('missing value for command');
    if (first.kind === 'call' && heads[0]?.kind === 'ident')
      return { kind: 'call', name: first.name, args: rest };
    if (first.kind === 'nil' && rest.length === 0) throw this.error('nil is not a command');
    if (rest.length > 0)
      throw this.error(`can't give argument to non-function ${this.describe(heads[0])}`);
    return first;
  }

  private operand(): Expr {
    const term = this.term();
    const names: string[] = [];
    while (this.peek()?.kind === 'field' && this.peek()?.spaceBefore === false) {
      names.push(this.next().value);
    }
    if (names.length === 0) return term;
    if (term.kind === 'chain')
      return { kind: 'chain', base: term.base, names: [...term.names, ...names] };
    if (
      term.kind === 'string' ||
      term.kind === 'int' ||
      term.kind === 'float' ||
      term.kind === 'bool' ||
      term.kind === 'nil'
    )
      throw this.error(`unexpected . after term ${JSON.stringify(term.kind)}`);
    return { kind: 'chain', base: term, names };
  }

  private term(): Expr {
    const token = this.next();
    switch (token.kind) {
      case 'dot':
        return { kind: 'dot' };
      case 'field': {
        const names = [token.value];
        while (this.peek()?.kind === 'field' && this.peek()?.spaceBefore === false)
          names.push(this.next().value);
        return { kind: 'chain', base: { kind: 'dot' }, names };
      }
      case 'selectKey':
        return { kind: 'selectKey', index: BigInt(token.value) };
      case 'variable':
        if (!this.owner.isDeclared(token.value))
          throw this.error(`undefined variable "${token.value}"`);
        return { kind: 'variable', name: token.value };
      case 'ident':
        if (!this.owner.hasFunction(token.value))
          throw this.error(`function "${token.value}" not defined`);
        return { kind: 'call', name: token.value, args: [] };
      case 'string':
        return { kind: 'string', value: token.value };
      case 'char':
        return { kind: 'int', value: BigInt(token.value.codePointAt(0) ?? 0) };
      case 'number':
        return this.number(token.value);
      case 'bool':
        return { kind: 'bool', value: token.value === 'true' };
      case 'nil':
        return { kind: 'nil' };
      case 'lparen': {
        const inner = this.commands();
        if (this.peek()?.kind !== 'rparen') throw this.error('unclosed left paren');
        this.pos += 1;
        return dug(inner);
      }
      default:
        throw this.error(`unexpected ${this.describe(token)} in operand`);
    }
  }

  private number(text: string): Expr {
    const clean = text.replace(/_/g, '');
    const isInt = /^[+-]?(0[xXbBoO][0-9a-fA-F]+|\d+)$/.test(clean);
    if (isInt) {
      const negative = clean.startsWith('-');
      const body = clean.replace(/^[+-]/, '');
      const normalised = /^0\d+$/.test(body) ? `0o${body.slice(1)}` : body;
      try {
        const value = BigInt(normalised);
        return { kind: 'int', value: negative ? -value : value };
      } catch {
        throw this.error(`bad number syntax: ${JSON.stringify(text)}`);
      }
    }
    const value = Number(clean);
    if (!Number.isFinite(value)) throw this.error(`bad number syntax: ${JSON.stringify(text)}`);
    return { kind: 'float', value };
  }

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private next(): Token {
    const token = this.tokens[this.pos];
    if (token === undefined) throw this.error('unexpected end of action');
    this.pos += 1;
    return token;
  }

  private describe(token: Token | undefined): string {
    if (token === undefined) return 'end of action';
    return token.kind === 'string'
      ? JSON.stringify(token.value)
      : `${token.kind} ${JSON.stringify(token.value)}`;
  }

  private error(message: string): Error {
    return parseError(`${message} in ${this.source}`);
  }
}

/**
 * The value of a command as the pipeline hands it on: Go digs it out of its interface{}, turning
 * a nil into no value (so `(.x).y` and `.x | f` see a JSON null as missing, where `.x.y` and `f .x`
 * see a nil). Function results are dug by the function helper already, and literals cannot be nil.
 */
function dug(expr: Expr): Expr {
  switch (expr.kind) {
    case 'dot':
    case 'variable':
    case 'chain':
    case 'selectKey':
      return { kind: 'dig', inner: expr };
    default:
      return expr;
  }
}
