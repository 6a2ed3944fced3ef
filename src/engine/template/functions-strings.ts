import { charge } from '../active-meter.js';
import { CASE_MAP_BYTES_PER_UNIT } from './costs.js';
import { renderError } from './faults.js';
import { fixed, variadic, type CallContext, type FunctionFamily } from './function-table.js';
import { formatValue, strval } from './go-print.js';
import { goQuote } from './go-printf.js';
import { checkListSize, checkStringSize } from './render-state.js';
import { chargeSort, newMap, setKey, toIntArg, toStringArg } from './go-values.js';

const str = toStringArg;
const int = toIntArg;

/**
 * Sprig's string functions. Argument order follows Sprig: the piped subject comes last.
 * The wrapper (function-helpers.ts) charges the strings each call reads and builds; what can
 * outgrow its input (repeat, replace, indent, split…) is sized before it is built.
 */
export function stringFunctions(): FunctionFamily {
  return {
    trim: fixed(1, ([s]) => str(s, 'trim').trim()),
    trimAll: fixed(2, ([cut, s]) => trimSet(str(s, 'trimAll'), str(cut, 'trimAll'))),
    trimall: fixed(2, ([cut, s]) => trimSet(str(s, 'trimall'), str(cut, 'trimall'))),
    trimPrefix: fixed(2, ([p, s]) => trimPrefix(str(s, 'trimPrefix'), str(p, 'trimPrefix'))),
    trimSuffix: fixed(2, ([p, s]) => trimSuffix(str(s, 'trimSuffix'), str(p, 'trimSuffix'))),
    upper: fixed(1, ([s]) => scanned(str(s, 'upper')).toUpperCase()),
    lower: fixed(1, ([s]) => scanned(str(s, 'lower')).toLowerCase()),
    title: fixed(1, ([s]) =>
      scanned(str(s, 'title')).replace(
        /(^|[^\p{L}\p{N}_'])(\p{L})/gu,
        (_m, sep: string, ch: string) => sep + ch.toUpperCase(),
      ),
    ),
    untitle: fixed(1, ([s]) =>
      scanned(str(s, 'untitle')).replace(
        /(^|\s)(\S)/gu,
        (_m, sep: string, ch: string) => sep + ch.toLowerCase(),
      ),
    ),
    repeat: fixed(2, ([n, s], call) => repeat(str(s, 'repeat'), int(n, 'repeat'), call)),
    substr: fixed(3, ([start, end, s]) =>
      substr(str(s, 'substr'), int(start, 'substr'), int(end, 'substr')),
    ),
    nospace: fixed(1, ([s]) => scanned(str(s, 'nospace')).replace(/\s+/gu, '')),
    trunc: fixed(2, ([n, s]) => trunc(str(s, 'trunc'), int(n, 'trunc'))),
    abbrev: fixed(2, ([w, s]) => abbrev(str(s, 'abbrev'), int(w, 'abbrev'))),
    contains: fixed(2, ([sub, s]) => str(s, 'contains').includes(str(sub, 'contains'))),
    hasPrefix: fixed(2, ([p, s]) => str(s, 'hasPrefix').startsWith(str(p, 'hasPrefix'))),
    hasSuffix: fixed(2, ([p, s]) => str(s, 'hasSuffix').endsWith(str(p, 'hasSuffix'))),
    quote: variadic(0, (args, call) =>
      printed(args, call)
        .map((a) => goQuote(a))
        .join(' '),
    ),
    squote: variadic(0, (args, call) =>
      printed(args, call)
        .map((a) => `'${a}'`)
        .join(' '),
    ),
    cat: variadic(0, (args, call) => printed(args, call).join(' ')),
    indent: fixed(2, ([n, s], call) => indent(str(s, 'indent'), int(n, 'indent'), call)),
    nindent: fixed(2, ([n, s], call) => `\n${indent(str(s, 'nindent'), int(n, 'nindent'), call)}`),
    replace: fixed(3, ([from, to, s], call) =>
      replaceAll(str(s, 'replace'), str(from, 'replace'), str(to, 'replace'), call),
    ),
    plural: fixed(3, ([one, many, n]) =>
      int(n, 'plural') === 1 ? str(one, 'plural') : str(many, 'plural'),
    ),
    snakecase: fixed(1, ([s]) =>
      words(scanned(str(s, 'snakecase')))
        .map((w) => w.toLowerCase())
        .join('_'),
    ),
    kebabcase: fixed(1, ([s]) =>
      words(scanned(str(s, 'kebabcase')))
        .map((w) => w.toLowerCase())
        .join('-'),
    ),
    camelcase: fixed(1, ([s]) => camelcase(scanned(str(s, 'camelcase')))),
    split: fixed(2, ([sep, s], call) =>
      splitToDict(goSplit(str(s, 'split'), str(sep, 'split'), -1, call)),
    ),
    splitList: fixed(2, ([sep, s], call) =>
      goSplit(str(s, 'splitList'), str(sep, 'splitList'), -1, call),
    ),
    splitn: fixed(3, ([sep, n, s], call) =>
      splitToDict(goSplit(str(s, 'splitn'), str(sep, 'splitn'), int(n, 'splitn'), call)),
    ),
    join: fixed(2, ([sep, list], call) => join(stringList(list, call), str(sep, 'join'), call)),
    sortAlpha: fixed(1, ([list], call) => {
      // Sprig: a value that is not a list becomes a one-string list, a nil included (`[<nil>]`).
      const items = list === null ? ['<nil>'] : stringList(list, call);
      chargeSort(items.length);
      return items.sort(compareStrings);
    }),
    toString: fixed(1, ([v], call) => strval(v, call.state.limits.maxOutputBytes)),
    toStrings: fixed(1, ([v], call) => stringList(v, call)),
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

/** The non-nil arguments printed with %v (cat, quote, squote), within the string limit. */
function printed(args: readonly unknown[], call: CallContext): string[] {
  const max = call.state.limits.maxOutputBytes;
  let total = 0;
  const out: string[] = [];
  for (const arg of args) {
    if (arg === null || arg === undefined) continue;
    const text = formatValue(arg, max);
    total += text.length + 1;
    checkStringSize(call.state, total, call.name);
    out.push(text);
  }
  return out;
}

/** sprig's strslice: lists become their elements' strval (nil elements dropped), anything else one string. */
export function stringList(value: unknown, call: CallContext): string[] {
  const max = call.state.limits.maxOutputBytes;
  if (Array.isArray(value)) {
    charge(value.length);
    const out: string[] = [];
    let total = 0;
    for (const v of value) {
      if (v === null || v === undefined) continue;
      const text = strval(v, max);
      total += text.length;
      checkStringSize(call.state, total, call.name);
      out.push(text);
    }
    return out;
  }
  if (value === null || value === undefined) return [];
  return [strval(value, max)];
}

function join(items: readonly string[], sep: string, call: CallContext): string {
  const size = items.reduce((n, item) => n + item.length, 0) + sep.length * items.length;
  checkStringSize(call.state, size, 'join');
  return items.join(sep);
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
  const width = Math.max(n, 0);
  checkStringSize(call.state, s.length + width, 'indent');
  const lines = 1 + occurrences(s, '\n');
  checkStringSize(call.state, s.length + width * lines, 'indent');
  const pad = ' '.repeat(width);
  return pad + s.replaceAll('\n', `\n${pad}`);
}

/** Non-overlapping occurrences of a non-empty `needle` in `s`, counted without splitting. */
/** Occurrences of `needle` in `s`, charged as they are found (each costs a search step). */
function occurrences(s: string, needle: string): number {
  let count = 0;
  for (let at = s.indexOf(needle); at >= 0; at = s.indexOf(needle, at + needle.length)) {
    count++;
    if ((count & (OCCURRENCES_PER_CHARGE - 1)) === 0) charge(OCCURRENCE_CHARGE);
  }
  return count;
}

/** Occurrences counted between two charges, and what those cost (about 10 ns each). */
const OCCURRENCES_PER_CHARGE = 1024;
const OCCURRENCE_CHARGE = 256;

/**
 * Charges mapping every character of `s` (case changes, regex rewrites: a few nanoseconds per
 * character, more than the wrapper's charge for reading it) and returns it.
 */
function scanned(s: string): string {
  charge(Math.ceil(s.length / CASE_MAP_BYTES_PER_UNIT));
  return s;
}

function replaceAll(s: string, from: string, to: string, call: CallContext): string {
  const count = from === '' ? s.length + 1 : occurrences(s, from);
  checkStringSize(call.state, s.length + count * (to.length - from.length), 'replace');
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

/**
 * strings.SplitN: n < 0 all parts, n == 0 none, otherwise at most n parts. The parts are counted
 * before they are built, so a split into more parts than the list limit allocates nothing.
 */
function goSplit(s: string, sep: string, n: number, call: CallContext): string[] {
  if (n === 0) return [];
  const all = sep === '' ? codePoints(s) : occurrences(s, sep) + 1;
  const count = n < 0 ? all : Math.min(all, n);
  checkListSize(call.state, count, call.name);
  charge(count);
  if (sep !== '') {
    if (count === all) return s.split(sep);
    const parts = s.split(sep, count - 1);
    const used = parts.reduce((len, part) => len + part.length + sep.length, 0);
    parts.push(s.slice(used));
    return parts;
  }
  const parts = Array.from(s);
  if (count === all) return parts;
  return [...parts.slice(0, count - 1), parts.slice(count - 1).join('')];
}

/** Code points in `s` (UTF-16 length minus the second halves of surrogate pairs). */
function codePoints(s: string): number {
  let count = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const code = s.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
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
