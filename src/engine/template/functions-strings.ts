import { goFormat } from '../go-format.js';
import { renderError } from './faults.js';
import { fixed, variadic, type CallContext, type FunctionFamily } from './function-table.js';
import { goQuote } from './go-printf.js';
import { checkStringSize } from './render-state.js';
import { newMap, setKey, strval, toIntArg, toStringArg } from './go-values.js';

const str = toStringArg;
const int = toIntArg;

/** Sprig's string functions. Argument order follows Sprig: the piped subject comes last. */
export function stringFunctions(): FunctionFamily {
  return {
    trim: fixed(1, ([s]) => str(s, 'trim').trim()),
    trimAll: fixed(2, ([cut, s]) => trimSet(str(s, 'trimAll'), str(cut, 'trimAll'))),
    trimall: fixed(2, ([cut, s]) => trimSet(str(s, 'trimall'), str(cut, 'trimall'))),
    trimPrefix: fixed(2, ([p, s]) => trimPrefix(str(s, 'trimPrefix'), str(p, 'trimPrefix'))),
    trimSuffix: fixed(2, ([p, s]) => trimSuffix(str(s, 'trimSuffix'), str(p, 'trimSuffix'))),
    upper: fixed(1, ([s]) => str(s, 'upper').toUpperCase()),
    lower: fixed(1, ([s]) => str(s, 'lower').toLowerCase()),
    title: fixed(1, ([s]) =>
      str(s, 'title').replace(
        /(^|[^\p{L}\p{N}_'])(\p{L})/gu,
        (_m, sep: string, ch: string) => sep + ch.toUpperCase(),
      ),
    ),
    untitle: fixed(1, ([s]) =>
      str(s, 'untitle').replace(
        /(^|\s)(\S)/gu,
        (_m, sep: string, ch: string) => sep + ch.toLowerCase(),
      ),
    ),
    repeat: fixed(2, ([n, s], call) => repeat(str(s, 'repeat'), int(n, 'repeat'), call)),
    substr: fixed(3, ([start, end, s]) =>
      substr(str(s, 'substr'), int(start, 'substr'), int(end, 'substr')),
    ),
    nospace: fixed(1, ([s]) => str(s, 'nospace').replace(/\s+/gu, '')),
    trunc: fixed(2, ([n, s]) => trunc(str(s, 'trunc'), int(n, 'trunc'))),
    abbrev: fixed(2, ([w, s]) => abbrev(str(s, 'abbrev'), int(w, 'abbrev'))),
    contains: fixed(2, ([sub, s]) => str(s, 'contains').includes(str(sub, 'contains'))),
    hasPrefix: fixed(2, ([p, s]) => str(s, 'hasPrefix').startsWith(str(p, 'hasPrefix'))),
    hasSuffix: fixed(2, ([p, s]) => str(s, 'hasSuffix').endsWith(str(p, 'hasSuffix'))),
    quote: variadic(0, (args) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => goQuote(strval(a)))
        .join(' '),
    ),
    squote: variadic(0, (args) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => `'${strval(a)}'`)
        .join(' '),
    ),
    cat: variadic(0, (args) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => goFormat(a))
        .join(' '),
    ),
    indent: fixed(2, ([n, s], call) => indent(str(s, 'indent'), int(n, 'indent'), call)),
    nindent: fixed(2, ([n, s], call) => `\n${indent(str(s, 'nindent'), int(n, 'nindent'), call)}`),
    replace: fixed(3, ([from, to, s], call) =>
      replaceAll(str(s, 'replace'), str(from, 'replace'), str(to, 'replace'), call),
    ),
    plural: fixed(3, ([one, many, n]) =>
      int(n, 'plural') === 1 ? str(one, 'plural') : str(many, 'plural'),
    ),
    snakecase: fixed(1, ([s]) =>
      words(str(s, 'snakecase'))
        .map((w) => w.toLowerCase())
        .join('_'),
    ),
    kebabcase: fixed(1, ([s]) =>
      words(str(s, 'kebabcase'))
        .map((w) => w.toLowerCase())
        .join('-'),
    ),
    camelcase: fixed(1, ([s]) => camelcase(str(s, 'camelcase'))),
    split: fixed(2, ([sep, s]) => splitToDict(goSplit(str(s, 'split'), str(sep, 'split'), -1))),
    splitList: fixed(2, ([sep, s]) => goSplit(str(s, 'splitList'), str(sep, 'splitList'), -1)),
    splitn: fixed(3, ([sep, n, s]) =>
      splitToDict(goSplit(str(s, 'splitn'), str(sep, 'splitn'), int(n, 'splitn'))),
    ),
    join: fixed(2, ([sep, list]) => stringList(list).join(str(sep, 'join'))),
    sortAlpha: fixed(1, ([list]) => stringList(list).sort(compareStrings)),
    toString: fixed(1, ([v]) => strval(v)),
    toStrings: fixed(1, ([v]) => stringList(v)),
    wrap: fixed(2, ([n, s]) => wrap(str(s, 'wrap'), int(n, 'wrap'))),
    initials: fixed(1, ([s]) =>
      str(s, 'initials')
        .split(/\s+/u)
        .filter((w) => w !== '')
        .map((w) => Array.from(w)[0] ?? '')
        .join(''),
    ),
  };
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** sprig's strslice: lists become their elements' strval (nil elements dropped), anything else one string. */
export function stringList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v) => v !== null && v !== undefined).map(strval);
  if (value === null || value === undefined) return [];
  return [strval(value)];
}

function trimSet(s: string, cutset: string): string {
  const set = new Set(Array.from(cutset));
  const chars = Array.from(s);
  let start = 0;
  let end = chars.length;
  while (start < end && set.has(chars[start] ?? '')) start++;
  while (end > start && set.has(chars[end - 1] ?? '')) end--;
  return chars.slice(start, end).join('');
}

function trimPrefix(s: string, prefix: string): string {
  return prefix !== '' && s.startsWith(prefix) ? s.slice(prefix.length) : s;
}

function trimSuffix(s: string, suffix: string): string {
  return suffix !== '' && s.endsWith(suffix) ? s.slice(0, s.length - suffix.length) : s;
}

function repeat(s: string, count: number, call: CallContext): string {
  if (count < 0) throw renderError('strings: negative Repeat count');
  checkStringSize(call.state, s.length * count, 'repeat');
  return s.repeat(count);
}

function substr(s: string, start: number, end: number): string {
  if (start < 0) return s.slice(0, Math.max(end, 0));
  if (end < 0 || end > s.length) return s.slice(start);
  if (start > end) throw renderError(`slice bounds out of range [${start}:${end}]`);
  return s.slice(start, end);
}

function trunc(s: string, c: number): string {
  if (c < 0 && s.length + c > 0) return s.slice(s.length + c);
  if (c >= 0 && s.length > c) return s.slice(0, c);
  return s;
}

function abbrev(s: string, width: number): string {
  if (width < 4 || s.length <= width) return s;
  return `${s.slice(0, width - 3)}...`;
}

function indent(s: string, n: number, call: CallContext): string {
  const pad = ' '.repeat(Math.max(n, 0));
  const lines = s.split('\n').length;
  checkStringSize(call.state, s.length + pad.length * lines, 'indent');
  return pad + s.replaceAll('\n', `\n${pad}`);
}

function replaceAll(s: string, from: string, to: string, call: CallContext): string {
  const occurrences = from === '' ? s.length + 1 : s.split(from).length - 1;
  checkStringSize(call.state, s.length + occurrences * to.length, 'replace');
  return s.replaceAll(from, to);
}

/** Splits identifiers into words at case changes and separators (xstrings style). */
function words(s: string): string[] {
  return s
    .replace(/([\p{Ll}\p{Nd}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[^\p{L}\p{Nd}]+/u)
    .filter((w) => w !== '');
}

function camelcase(s: string): string {
  return s
    .split(/[_\s-]+/u)
    .filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

/** strings.SplitN: n < 0 all parts, n == 0 none, otherwise at most n parts. */
function goSplit(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  const parts = sep === '' ? Array.from(s) : s.split(sep);
  if (n < 0 || parts.length <= n) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

function splitToDict(parts: readonly string[]): Record<string, unknown> {
  const out = newMap();
  parts.forEach((part, i) => {
    setKey(out, `_${i}`, part);
  });
  return out;
}

/** goutils.Wrap: greedy word wrap at spaces, long words kept whole. */
function wrap(s: string, width: number): string {
  const limit = Math.max(width, 1);
  return s
    .split('\n')
    .map((line) => {
      const out: string[] = [];
      let current = '';
      for (const word of line.split(' ')) {
        if (current === '') current = word;
        else if (current.length + 1 + word.length <= limit) current += ` ${word}`;
        else {
          out.push(current);
          current = word;
        }
      }
      out.push(current);
      return out.join('\n');
    })
    .join('\n');
}
