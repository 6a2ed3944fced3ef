import { KubemodError } from '../../errors/catalog.js';

export type TokenKind =
  | 'root' // $
  | 'current' // @
  | 'dot' // .
  | 'descend' // ..
  | 'lbracket'
  | 'rbracket'
  | 'lparen'
  | 'rparen'
  | 'lbrace'
  | 'rbrace'
  | 'comma'
  | 'colon'
  | 'question' // ?
  | 'op' // operators, value holds the operator text
  | 'ident'
  | 'number'
  | 'string'
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** Decoded value for strings and numbers. */
  readonly value: string | number | undefined;
  readonly pos: number;
}

/** Operators, longest first so that `==` wins over `=`, `??` over `?` and so on. */
const OPERATORS = [
  '==',
  '!=',
  '<=',
  '>=',
  '=~',
  '!~',
  '&&',
  '||',
  '??',
  '<',
  '>',
  '!',
  '+',
  '-',
  '*',
  '/',
  '%',
];
const PUNCTUATION: Readonly<Record<string, TokenKind>> = {
  $: 'root',
  '@': 'current',
  '[': 'lbracket',
  ']': 'rbracket',
  '(': 'lparen',
  ')': 'rparen',
  '{': 'lbrace',
  '}': 'rbrace',
  ',': 'comma',
  ':': 'colon',
};

/** Longest part of a select expression quoted in an error message. */
const QUOTED_SOURCE_LENGTH = 200;

/** The expression as error messages quote it: in JSON quotes, long ones cut short. */
export function quoteSource(source: string): string {
  return source.length > QUOTED_SOURCE_LENGTH
    ? `${JSON.stringify(source.slice(0, QUOTED_SOURCE_LENGTH))}…`
    : JSON.stringify(source);
}

export function syntaxError(source: string, pos: number, reason: string): KubemodError {
  return new KubemodError(
    'EXPR_SYNTAX',
    `invalid select expression ${quoteSource(source)} at position ${String(pos)}: ${reason}`,
  );
}

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isIdentStart = (c: string): boolean =>
  (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c === '_';
const isIdentPart = (c: string): boolean => isIdentStart(c) || isDigit(c);

/** Splits a select expression into tokens. Throws a catalogued EXPR_SYNTAX error on bad input. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (kind: TokenKind, text: string, pos: number, value?: string | number): void => {
    tokens.push({ kind, text, pos, value });
  };
  while (i < source.length) {
    const c = source.charAt(i);
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const start = i;
    if (c === '.') {
      if (source.charAt(i + 1) === '.') {
        push('descend', '..', start);
        i += 2;
      } else if (isDigit(source.charAt(i + 1))) {
        i = readNumber(source, i, push);
      } else {
        push('dot', '.', start);
        i++;
      }
      continue;
    }
    if (c === '?' && source.charAt(i + 1) !== '?') {
      push('question', '?', start);
      i++;
      continue;
    }
    const punct = PUNCTUATION[c];
    if (punct !== undefined) {
      push(punct, c, start);
      i++;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      i = readString(source, i, push);
      continue;
    }
    if (isDigit(c)) {
      i = readNumber(source, i, push);
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < source.length && isIdentPart(source.charAt(j))) j++;
      push('ident', source.slice(i, j), start);
      i = j;
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (op !== undefined) {
      push('op', op, start);
      i += op.length;
      continue;
    }
    throw syntaxError(source, i, `unexpected character ${JSON.stringify(c)}`);
  }
  push('eof', '', source.length);
  return tokens;
}

type Push = (kind: TokenKind, text: string, pos: number, value?: string | number) => void;

function readNumber(source: string, start: number, push: Push): number {
  const match = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(source.slice(start));
  const text = match?.[0] ?? '';
  const value = Number(text);
  if (text === '' || !Number.isFinite(value)) throw syntaxError(source, start, 'invalid number');
  push('number', text, start, value);
  return start + text.length;
}

const ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
  '\\': '\\',
  '"': '"',
  "'": "'",
  '/': '/',
};

/** Whether source[from, to) holds a backslash (bounded by the string's own length). */
function hasBackslash(source: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (source.charCodeAt(i) === 0x5c) return true;
  return false;
}

function readString(source: string, start: number, push: Push): number {
  const quote = source.charAt(start);
  const end = source.indexOf(quote, start + 1);
  // Most strings have no escapes: one slice instead of a string built a character at a time.
  if (end !== -1 && (quote === '`' || !hasBackslash(source, start + 1, end))) {
    push('string', source.slice(start, end + 1), start, source.slice(start + 1, end));
    return end + 1;
  }
  let i = start + 1;
  let out = '';
  while (i < source.length) {
    const c = source.charAt(i);
    if (c === quote) {
      push('string', source.slice(start, i + 1), start, out);
      return i + 1;
    }
    if (c === '\\' && quote !== '`') {
      const next = source.charAt(i + 1);
      if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
        out += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      const escaped = ESCAPES[next];
      // Unknown escapes keep the backslash, so regex literals such as "\." and "\d" survive intact.
      out += escaped ?? `\\${next}`;
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  throw syntaxError(source, start, 'unterminated string');
}
