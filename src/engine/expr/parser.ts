import type { BinaryOp, Expr, Step } from './ast.js';
import { syntaxError, tokenize, type Token, type TokenKind } from './lexer.js';
import { KubemodError } from '../../errors/catalog.js';

/** Longest select expression accepted. */
export const MAX_SOURCE_LENGTH = 16_384;
/** Deepest nesting of sub-expressions accepted (keeps the recursive evaluator far from stack limits). */
export const MAX_DEPTH = 64;

/** Binding power of each binary operator; the ternary `? :` binds loosest. */
const BINARY_POWER: Readonly<Record<string, number>> = {
  '??': 2,
  '||': 3,
  '&&': 4,
  '==': 5,
  '!=': 5,
  '<': 5,
  '<=': 5,
  '>': 5,
  '>=': 5,
  '=~': 5,
  '!~': 5,
  in: 5,
  '+': 6,
  '-': 6,
  '*': 7,
  '/': 7,
  '%': 7,
};
const TERNARY_POWER = 1;
const UNARY_POWER = 8;

/** Parses a select expression into its syntax tree. Throws only catalogued EXPR_SYNTAX errors. */
export function parseExpression(source: string): Expr {
  if (source.trim() === '') {
    throw new KubemodError('EXPR_SYNTAX', 'select expression is empty');
  }
  if (source.length > MAX_SOURCE_LENGTH) {
    throw new KubemodError(
      'EXPR_SYNTAX',
      `select expression is ${source.length} characters long, over the ${MAX_SOURCE_LENGTH} limit`,
    );
  }
  return new Parser(source, tokenize(source)).parseAll();
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly source: string,
    private readonly tokens: readonly Token[],
  ) {}

  parseAll(): Expr {
    const expr = this.parseExpr(0);
    const next = this.peek();
    if (next.kind !== 'eof') throw this.error(next, `unexpected ${describe(next)}`);
    return expr;
  }

  private peek(offset = 0): Token {
    const token = this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)];
    if (token === undefined) throw syntaxError(this.source, this.source.length, 'unexpected end');
    return token;
  }

  private next(): Token {
    const token = this.peek();
    if (this.pos < this.tokens.length - 1) this.pos++;
    return token;
  }

  private expect(kind: TokenKind, what: string): Token {
    const token = this.next();
    if (token.kind !== kind)
      throw this.error(token, `expected ${what} but found ${describe(token)}`);
    return token;
  }

  private error(token: Token, reason: string): KubemodError {
    return syntaxError(this.source, token.pos, reason);
  }

  private parseExpr(minPower: number): Expr {
    if (++this.depth > MAX_DEPTH) {
      throw this.error(this.peek(), `expression nests deeper than ${MAX_DEPTH} levels`);
    }
    let left = this.parseUnary();
    for (;;) {
      const token = this.peek();
      if (token.kind === 'question') {
        if (TERNARY_POWER < minPower) break;
        this.next();
        const then = this.parseExpr(0);
        this.expect('colon', '":" of the ternary operator');
        const otherwise = this.parseExpr(TERNARY_POWER);
        left = { type: 'ternary', test: left, then, otherwise };
        continue;
      }
      const op = binaryOperator(token);
      if (op === undefined) break;
      const power = BINARY_POWER[op] ?? 0;
      if (power <= minPower) break;
      this.next();
      const right = this.parseExpr(power);
      left = { type: 'binary', op, left, right };
    }
    this.depth--;
    return left;
  }

  private parseUnary(): Expr {
    const token = this.peek();
    if (token.kind === 'op' && (token.text === '!' || token.text === '-')) {
      this.next();
      const operand = this.parseExpr(UNARY_POWER);
      if (token.text === '-' && operand.type === 'literal' && typeof operand.value === 'number') {
        return { type: 'literal', value: -operand.value };
      }
      return { type: 'unary', op: token.text, operand };
    }
    return this.parsePrimary();
  }

  private parsePrimary(): Expr {
    const token = this.next();
    switch (token.kind) {
      case 'number':
        return { type: 'literal', value: Number(token.value) };
      case 'string':
        return { type: 'literal', value: String(token.value) };
      case 'root':
        return { type: 'path', root: 'root', steps: this.parseSteps() };
      case 'current':
        return { type: 'path', root: 'current', steps: this.parseSteps() };
      case 'lparen': {
        const inner = this.parseExpr(0);
        this.expect('rparen', '")"');
        return inner;
      }
      case 'lbracket':
        return { type: 'array', items: this.parseList('rbracket', ']') };
      case 'lbrace':
        return this.parseObject();
      case 'ident':
        return this.parseIdentifier(token);
      default:
        throw this.error(token, `unexpected ${describe(token)}`);
    }
  }

  private parseIdentifier(token: Token): Expr {
    switch (token.text) {
      case 'true':
        return { type: 'literal', value: true };
      case 'false':
        return { type: 'literal', value: false };
      case 'null':
      case 'nil':
        return { type: 'literal', value: null };
    }
    if (this.peek().kind !== 'lparen') {
      throw this.error(
        token,
        `unknown identifier ${JSON.stringify(token.text)} (paths start with $ or @)`,
      );
    }
    this.next();
    return { type: 'call', name: token.text, args: this.parseList('rparen', ')') };
  }

  private parseList(close: TokenKind, closeText: string): Expr[] {
    const items: Expr[] = [];
    if (this.peek().kind === close) {
      this.next();
      return items;
    }
    for (;;) {
      items.push(this.parseExpr(0));
      const token = this.next();
      if (token.kind === close) return items;
      if (token.kind !== 'comma')
        throw this.error(token, `expected "," or "${closeText}" but found ${describe(token)}`);
    }
  }

  private parseObject(): Expr {
    const entries: [string, Expr][] = [];
    if (this.peek().kind === 'rbrace') {
      this.next();
      return { type: 'object', entries };
    }
    for (;;) {
      const key = this.next();
      if (key.kind !== 'string' && key.kind !== 'ident')
        throw this.error(key, 'expected an object key');
      this.expect('colon', '":" after the object key');
      entries.push([key.kind === 'string' ? String(key.value) : key.text, this.parseExpr(0)]);
      const token = this.next();
      if (token.kind === 'rbrace') return { type: 'object', entries };
      if (token.kind !== 'comma')
        throw this.error(token, `expected "," or "}" but found ${describe(token)}`);
    }
  }

  private parseSteps(): Step[] {
    const steps: Step[] = [];
    for (;;) {
      const token = this.peek();
      if (token.kind === 'dot') {
        this.next();
        steps.push(this.parseDotStep());
      } else if (token.kind === 'descend') {
        this.next();
        const after = this.peek();
        const then =
          after.kind === 'lbracket' ? (this.next(), this.parseBracketStep()) : this.parseDotStep();
        steps.push({ type: 'descend', then });
      } else if (token.kind === 'lbracket') {
        this.next();
        steps.push(this.parseBracketStep());
      } else {
        return steps.slice(); // exact size: compiled selects live as long as their rules
      }
    }
  }

  private parseDotStep(): Step {
    const token = this.next();
    if (token.kind === 'ident') return { type: 'member', name: token.text };
    if (token.kind === 'op' && token.text === '*') return { type: 'wildcard' };
    throw this.error(token, `expected a property name or * after "." but found ${describe(token)}`);
  }

  /** Parses what follows `[`: a filter, a wildcard, an index, a key, a union or a slice. */
  private parseBracketStep(): Step {
    const first = this.peek();
    if (first.kind === 'question') {
      this.next();
      const predicate = this.parseExpr(0);
      this.expect('rbracket', '"]" closing the filter');
      return { type: 'filter', predicate };
    }
    if (first.kind === 'op' && first.text === '*' && this.peek(1).kind === 'rbracket') {
      this.next();
      this.next();
      return { type: 'wildcard' };
    }
    if (first.kind === 'colon' || this.peek(this.signedNumberLength()).kind === 'colon') {
      return this.parseSlice();
    }
    const keys: (string | number)[] = [];
    for (;;) {
      keys.push(this.parseKey());
      const token = this.next();
      if (token.kind === 'rbracket') break;
      if (token.kind !== 'comma')
        throw this.error(token, `expected "," or "]" but found ${describe(token)}`);
    }
    const [only] = keys;
    if (keys.length === 1 && only !== undefined) {
      return typeof only === 'number'
        ? { type: 'index', index: only }
        : { type: 'member', name: only };
    }
    return { type: 'union', keys };
  }

  private signedNumberLength(): number {
    const token = this.peek();
    if (token.kind === 'number') return 1;
    if (token.kind === 'op' && token.text === '-' && this.peek(1).kind === 'number') return 2;
    return 0;
  }

  private parseKey(): string | number {
    const token = this.next();
    if (token.kind === 'string') return String(token.value);
    const negative = token.kind === 'op' && token.text === '-';
    const numberToken = negative ? this.next() : token;
    if (numberToken.kind === 'number' && Number.isInteger(numberToken.value)) {
      return negative ? -Number(numberToken.value) : Number(numberToken.value);
    }
    throw this.error(
      numberToken,
      `expected an index, a quoted key, * or a filter but found ${describe(numberToken)}`,
    );
  }

  private parseSlice(): Step {
    const parts: (number | undefined)[] = [];
    for (;;) {
      const token = this.peek();
      if (token.kind === 'colon' || token.kind === 'rbracket') {
        parts.push(undefined);
      } else {
        const key = this.parseKey();
        if (typeof key !== 'number') throw this.error(token, 'slice bounds must be integers');
        parts.push(key);
      }
      const sep = this.next();
      if (sep.kind === 'rbracket') break;
      if (sep.kind !== 'colon' || parts.length >= 3) throw this.error(sep, 'malformed slice');
    }
    const [start, end, step] = parts;
    if (step === 0) throw this.error(this.peek(), 'slice step cannot be 0');
    return { type: 'slice', start, end, step };
  }
}

function binaryOperator(token: Token): BinaryOp | undefined {
  if (token.kind === 'ident' && token.text === 'in') return 'in';
  if (token.kind !== 'op' || token.text === '!') return undefined;
  return token.text as BinaryOp;
}

function describe(token: Token): string {
  return token.kind === 'eof' ? 'end of expression' : JSON.stringify(token.text);
}
