import type { BinaryOp, Expr, Step } from './ast.js';
import { syntaxError, tokenize, type Token, type TokenKind } from './lexer.js';
import { KubemodError } from '../../errors/catalog.js';
import { quotedKeyHint, unclosed } from './parse-hints.js';

/** Longest select expression accepted. */
export const MAX_SOURCE_LENGTH = 16_384;
/**
 * Deepest syntax tree accepted, counting every level of the tree that results: each operator of a
 * flat chain such as `1+1+1` or `a || b || c` adds one (they nest to the left), and so does each
 * unary operator, function call, array or object literal, filter and pair of parentheses. Compiling
 * and evaluating recurse once per level, so this keeps them far from the stack limit (a tree at the
 * limit uses a few percent of Node's default stack) while leaving room for any real rule.
 */
export const MAX_DEPTH = 256;

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
  /** Current recursion depth of parseExpr (parentheses count here, not in the tree). */
  private depth = 0;
  /** Height of every node above a leaf (leaves are height 1 and not recorded). */
  private readonly heights = new Map<Expr, number>();

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

  private tooDeep(token: Token): KubemodError {
    return this.error(
      token,
      `expression nests deeper than ${String(MAX_DEPTH)} levels (each operator of a chain, unary operator, call, array, object, filter and parenthesis counts as one)`,
    );
  }

  private heightOf(expr: Expr): number {
    return this.heights.get(expr) ?? 1;
  }

  /** Records the height of a node built over `children`, refusing trees deeper than MAX_DEPTH. */
  private node<T extends Expr>(expr: T, children: readonly Expr[], at: Token, extra = 0): T {
    let height = 0;
    for (const child of children) height = Math.max(height, this.heightOf(child));
    height += 1 + extra;
    if (height > MAX_DEPTH) throw this.tooDeep(at);
    if (height > 1) this.heights.set(expr, height);
    return expr;
  }

  private parseExpr(minPower: number): Expr {
    if (++this.depth > MAX_DEPTH) throw this.tooDeep(this.peek());
    let left = this.parseUnary();
    for (;;) {
      const token = this.peek();
      if (token.kind === 'question') {
        if (TERNARY_POWER < minPower) break;
        this.next();
        const then = this.parseExpr(0);
        this.expect('colon', '":" of the ternary operator');
        const otherwise = this.parseExpr(TERNARY_POWER);
        left = this.node(
          { type: 'ternary', test: left, then, otherwise },
          [left, then, otherwise],
          token,
        );
        continue;
      }
      const op = binaryOperator(token);
      if (op === undefined) break;
      const power = BINARY_POWER[op] ?? 0;
      if (power <= minPower) break;
      this.next();
      const right = this.parseExpr(power);
      left = this.node({ type: 'binary', op, left, right }, [left, right], token);
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
      return this.node({ type: 'unary', op: token.text, operand }, [operand], token);
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
      case 'current':
        return this.parsePath(token);
      case 'lparen': {
        const inner = this.parseExpr(0);
        this.expect('rparen', '")"');
        return inner;
      }
      case 'lbracket': {
        const items = this.parseList('rbracket', ']');
        return this.node({ type: 'array', items }, items, token);
      }
      case 'lbrace':
        return this.parseObject(token);
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
      const hint = quotedKeyHint(this.source, this.tokens[this.pos - 2], token);
      throw this.error(
        token,
        `unknown identifier ${JSON.stringify(token.text)} (paths start with $ or @)${hint}`,
      );
    }
    this.next();
    const args = this.parseList('rparen', ')');
    return this.node({ type: 'call', name: token.text, args }, args, token);
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

  private parseObject(open: Token): Expr {
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
      if (token.kind === 'rbrace') {
        const values = entries.map(([, value]) => value);
        return this.node({ type: 'object', entries }, values, open);
      }
      if (token.kind !== 'comma')
        throw this.error(token, `expected "," or "}" but found ${describe(token)}`);
    }
  }

  /** A path; each filter in it adds its predicate's height plus one level for the filter. */
  private parsePath(token: Token): Expr {
    const steps = this.parseSteps();
    const predicates: Expr[] = [];
    for (const step of steps) {
      const inner = step.type === 'descend' ? step.then : step;
      if (inner.type === 'filter') predicates.push(inner.predicate);
    }
    const root = token.kind === 'root' ? 'root' : 'current';
    return this.node(
      { type: 'path', root, steps },
      predicates,
      token,
      predicates.length > 0 ? 1 : 0,
    );
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
    const open = this.tokens[this.pos - 1]?.pos ?? 0;
    const first = this.peek();
    if (first.kind === 'question') {
      this.next();
      const predicate = this.parseExpr(0);
      this.expect('rbracket', '"]" closing the filter');
      return { type: 'filter', predicate };
    }
    if (first.kind === 'op' && first.text === '*') {
      const after = this.peek(1);
      if (after.kind !== 'rbracket') throw this.error(after, unclosed(open, '"*"', after));
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
      if (token.kind === 'eof') throw this.error(token, unclosed(open, 'the key', token));
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
