import { parseError } from './faults.js';

export type TokenKind =
  | 'field'
  | 'selectKey'
  | 'variable'
  | 'dot'
  | 'ident'
  | 'keyword'
  | 'string'
  | 'number'
  | 'char'
  | 'bool'
  | 'nil'
  | 'lparen'
  | 'rparen'
  | 'pipe'
  | 'declare'
  | 'assign'
  | 'comma';

export interface Token {
  readonly kind: TokenKind;
  /** Decoded value: the name, the unquoted string, the number text… */
  readonly value: string;
  /** Whether whitespace separates this token from the previous one (fields chain only without it). */
  readonly spaceBefore: boolean;
}

export type Segment =
  | { readonly kind: 'text'; readonly value: string }
  | { readonly kind: 'action'; readonly tokens: readonly Token[]; readonly source: string };

const KEYWORDS = new Set([
  'block',
  'break',
  'continue',
  'define',
  'else',
  'end',
  'if',
  'range',
  'template',
  'with',
]);
const SPACE = /[ \t\r\n]/;
const NUMBER =
  /^[+-]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?)/;
const WORD = /^[\p{L}\p{Nd}_]+/u;
const IDENT = /^[\p{L}_][\p{L}\p{Nd}_]*/u;

interface RawSegment {
  /** undefined for a comment, which prints nothing but still trims its neighbours. */
  readonly seg: Segment | undefined;
  readonly trimLeft: boolean;
  readonly trimRight: boolean;
}

/** Splits Go template source into text and action segments, applying `{{-` / `-}}` trimming and dropping comments. */
export function lexGoTemplate(source: string): Segment[] {
  const raw: RawSegment[] = [];
  const text = (value: string): void => {
    raw.push({ seg: { kind: 'text', value }, trimLeft: false, trimRight: false });
  };
  let pos = 0;
  while (pos < source.length) {
    const open = source.indexOf('{{', pos);
    if (open < 0) {
      text(source.slice(pos));
      break;
    }
    if (open > pos) text(source.slice(pos, open));
    let p = open + 2;
    const trimLeft = source[p] === '-' && SPACE.test(source[p + 1] ?? '');
    if (trimLeft) p += 2;
    if (source.startsWith('/*', p)) {
      const close = source.indexOf('*/', p + 2);
      if (close < 0) throw parseError(`unclosed comment at ${excerpt(source, open)}`);
      const end = closingAt(source, close + 2);
      if (end === undefined)
        throw parseError(`comment ends before closing delimiter at ${excerpt(source, open)}`);
      raw.push({ seg: undefined, trimLeft, trimRight: end.trim });
      pos = end.next;
      continue;
    }
    const { tokens, next, trimRight } = lexAction(source, p, open);
    raw.push({
      seg: { kind: 'action', tokens, source: source.slice(open, next) },
      trimLeft,
      trimRight,
    });
    pos = next;
  }
  return applyTrim(raw);
}

function applyTrim(raw: readonly RawSegment[]): Segment[] {
  const out: Segment[] = [];
  raw.forEach((item, i) => {
    if (item.seg === undefined) return;
    if (item.seg.kind !== 'text') {
      out.push(item.seg);
      return;
    }
    let value = item.seg.value;
    if (raw[i - 1]?.trimRight === true) value = value.replace(/^[ \t\r\n]+/, '');
    if (raw[i + 1]?.trimLeft === true) value = value.replace(/[ \t\r\n]+$/, '');
    if (value !== '') out.push({ kind: 'text', value });
  });
  return out;
}

function closingAt(source: string, p: number): { next: number; trim: boolean } | undefined {
  if (source.startsWith('}}', p)) return { next: p + 2, trim: false };
  if (SPACE.test(source[p] ?? '') && source.startsWith('-}}', p + 1))
    return { next: p + 4, trim: true };
  return undefined;
}

function excerpt(source: string, at: number): string {
  const text = source.slice(at, at + 40);
  return JSON.stringify(text.length < source.length - at ? `${text}…` : text);
}

function lexAction(
  source: string,
  start: number,
  open: number,
): { tokens: Token[]; next: number; trimRight: boolean } {
  const tokens: Token[] = [];
  let p = start;
  let spaceBefore = true;
  const push = (kind: TokenKind, value: string): void => {
    tokens.push({ kind, value, spaceBefore });
    spaceBefore = false;
  };
  for (;;) {
    const end = closingAt(source, p);
    if (end !== undefined) return { tokens, next: end.next, trimRight: end.trim };
    if (p >= source.length) throw parseError(`unclosed action at ${excerpt(source, open)}`);
    const ch = source.charAt(p);
    const rest = source.slice(p, p + 256);
    if (SPACE.test(ch)) {
      spaceBefore = true;
      p += 1;
      continue;
    }
    if (ch === '"' || ch === '`' || ch === "'") {
      const lit = lexQuoted(source, p, open);
      push(ch === "'" ? 'char' : 'string', lit.value);
      p = lit.next;
      continue;
    }
    const num = NUMBER.exec(rest);
    if (
      num !== null &&
      (/\d/.test(ch) ||
        ((ch === '-' || ch === '+' || ch === '.') &&
          /\d/.test(rest.charAt(1) === '.' ? rest.charAt(2) : rest.charAt(1))))
    ) {
      push('number', num[0]);
      p += num[0].length;
      continue;
    }
    if (ch === '.') {
      const key = /^\.#(\d+)/.exec(rest);
      const word = WORD.exec(rest.slice(1));
      if (key !== null) {
        push('selectKey', key[1] ?? '0');
        p += key[0].length;
      } else if (word !== null) {
        push('field', word[0]);
        p += 1 + word[0].length;
      } else {
        push('dot', '.');
        p += 1;
      }
      continue;
    }
    if (ch === '$') {
      const word = WORD.exec(rest.slice(1));
      const name = `$${word?.[0] ?? ''}`;
      push('variable', name);
      p += name.length;
      continue;
    }
    const ident = IDENT.exec(rest);
    if (ident !== null) {
      const word = ident[0];
      if (word === 'true' || word === 'false') push('bool', word);
      else if (word === 'nil') push('nil', word);
      else push(KEYWORDS.has(word) ? 'keyword' : 'ident', word);
      p += word.length;
      continue;
    }
    const punct = /^(:=|[=|(),])/.exec(rest);
    if (punct === null)
      throw parseError(`unexpected ${JSON.stringify(ch)} in action ${excerpt(source, open)}`);
    const op = punct[0];
    const kinds: Record<string, TokenKind> = {
      ':=': 'declare',
      '=': 'assign',
      '|': 'pipe',
      '(': 'lparen',
      ')': 'rparen',
      ',': 'comma',
    };
    push(kinds[op] ?? 'comma', op);
    p += op.length;
  }
}

function lexQuoted(source: string, start: number, open: number): { value: string; next: number } {
  const quote = source.charAt(start);
  if (quote === '`') {
    const close = source.indexOf('`', start + 1);
    if (close < 0) throw parseError(`unterminated raw quoted string at ${excerpt(source, open)}`);
    return { value: source.slice(start + 1, close), next: close + 1 };
  }
  let p = start + 1;
  let value = '';
  for (;;) {
    const ch = source.charAt(p);
    if (ch === '' || ch === '\n')
      throw parseError(`unterminated quoted string at ${excerpt(source, open)}`);
    if (ch === quote) break;
    if (ch === '\\') {
      const esc = decodeEscape(source, p, open);
      value += esc.value;
      p = esc.next;
      continue;
    }
    value += ch;
    p += 1;
  }
  if (quote === "'" && Array.from(value).length !== 1)
    throw parseError(`malformed character constant at ${excerpt(source, open)}`);
  return { value, next: p + 1 };
}

function decodeEscape(source: string, p: number, open: number): { value: string; next: number } {
  const ch = source.charAt(p + 1);
  const simple: Record<string, string> = {
    n: '\n',
    t: '\t',
    r: '\r',
    a: '\u0007',
    b: '\b',
    f: '\f',
    v: '\v',
    '\\': '\\',
    '"': '"',
    "'": "'",
  };
  const known = simple[ch];
  if (known !== undefined) return { value: known, next: p + 2 };
  const hexLength: Record<string, number> = { x: 2, u: 4, U: 8 };
  const len = hexLength[ch];
  if (len !== undefined) {
    const hex = source.slice(p + 2, p + 2 + len);
    const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === len ? parseInt(hex, 16) : NaN;
    if (Number.isNaN(code) || code > 0x10ffff)
      throw parseError(`invalid escape in string at ${excerpt(source, open)}`);
    return { value: String.fromCodePoint(code), next: p + 2 + len };
  }
  const octal = /^[0-7]{3}/.exec(source.slice(p + 1, p + 4));
  if (octal !== null) return { value: String.fromCodePoint(parseInt(octal[0], 8)), next: p + 4 };
  throw parseError(`unknown escape sequence \\${ch} at ${excerpt(source, open)}`);
}
