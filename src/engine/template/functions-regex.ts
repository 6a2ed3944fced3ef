import { KubemodError } from '../../errors/catalog.js';
import { RegexCache, type GoRegex } from '../regex.js';
import { charge } from '../active-meter.js';
import { renderError } from './faults.js';
import { fixed, type CallContext, type FunctionFamily } from './function-table.js';
import { toIntArg, toStringArg } from './go-values.js';
import { checkListSize, checkStringSize } from './render-state.js';

/**
 * Work units per regex match: each RE2 exec() call costs a few microseconds whatever it finds
 * (the input itself is charged once, by the function wrapper).
 */
const MATCH_UNITS = 32;

/**
 * Sprig's regex functions, all on RE2 (linear time) via compileRegex; never JS RegExp on user
 * patterns. Matches are visited one at a time (never all collected first), each charged, and the
 * functions that return a list of them stop at the list limit.
 */
export function regexFunctions(): FunctionFamily {
  // Patterns are nearly always literals: compile each once per environment, not on every render.
  const cache = new RegexCache(256);
  const regex = (pattern: unknown, fn: string): GoRegex => cachedRegex(cache, pattern, fn);
  const family: Record<string, ReturnType<typeof fixed>> = {
    regexMatch: fixed(2, ([re, s]) => regex(re, 'regexMatch').test(toStringArg(s, 'regexMatch'))),
    regexFind: fixed(2, ([re, s]) => {
      let found = '';
      eachMatch(regex(re, 'regexFind'), toStringArg(s, 'regexFind'), 1, (m) => {
        found = m[0];
      });
      return found;
    }),
    regexFindAll: fixed(3, ([re, s, n], call) => {
      const out: string[] = [];
      eachMatch(
        regex(re, 'regexFindAll'),
        toStringArg(s, 'regexFindAll'),
        toIntArg(n, 'regexFindAll'),
        (m) => {
          out.push(m[0]);
          checkListSize(call.state, out.length, call.name);
        },
      );
      return out;
    }),
    regexReplaceAll: fixed(3, ([re, s, repl], call) =>
      replace(
        regex(re, call.name),
        toStringArg(s, call.name),
        toStringArg(repl, call.name),
        true,
        call,
      ),
    ),
    regexReplaceAllLiteral: fixed(3, ([re, s, repl], call) =>
      replace(
        regex(re, call.name),
        toStringArg(s, call.name),
        toStringArg(repl, call.name),
        false,
        call,
      ),
    ),
    regexSplit: fixed(3, ([re, s, n], call) =>
      split(regex(re, 'regexSplit'), toStringArg(s, 'regexSplit'), toIntArg(n, 'regexSplit'), call),
    ),
    regexQuoteMeta: fixed(1, ([s]) =>
      toStringArg(s, 'regexQuoteMeta').replace(/[\\.+*?()|[\]{}^$]/g, '\\$&'),
    ),
  };
  for (const name of [
    'regexMatch',
    'regexFind',
    'regexFindAll',
    'regexReplaceAll',
    'regexReplaceAllLiteral',
    'regexSplit',
  ]) {
    const fn = family[name];
    if (fn !== undefined) family[`must${name.charAt(0).toUpperCase()}${name.slice(1)}`] = fn;
  }
  return family;
}

function cachedRegex(cache: RegexCache, pattern: unknown, fn: string): GoRegex {
  try {
    return cache.get(toStringArg(pattern, fn));
  } catch (err) {
    if (err instanceof KubemodError && err.kind === 'REGEX_INVALID') throw renderError(err.message);
    throw err;
  }
}

/**
 * Calls `visit` on every match left to right (at most n when n >= 0), stepping past empty matches
 * like Go. Each match is charged MATCH_UNITS before the next search.
 */
function eachMatch(
  re: GoRegex,
  s: string,
  n: number,
  visit: (match: RegExpExecArray) => void,
): void {
  if (n === 0) return;
  const global = re.global;
  global.lastIndex = 0;
  let prevEnd = -1;
  let found = 0;
  while (n < 0 || found < n) {
    charge(MATCH_UNITS);
    const m = global.exec(s);
    if (m === null) break;
    const text = m[0];
    if (text === '') {
      // Past one code point, as Go steps one UTF-8 sequence: never between a surrogate pair.
      global.lastIndex = m.index + ((s.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1);
      // Go does not report an empty match right after a previous match.
      if (m.index === prevEnd) {
        if (m.index >= s.length) break;
        continue;
      }
    }
    found += 1;
    visit(m);
    prevEnd = m.index + text.length;
    if (m.index >= s.length) break;
  }
}

function replace(re: GoRegex, s: string, repl: string, expand: boolean, call: CallContext): string {
  let out = '';
  let last = 0;
  eachMatch(re, s, -1, (m) => {
    out += s.slice(last, m.index) + (expand ? expandTemplate(repl, m) : repl);
    last = m.index + m[0].length;
    checkStringSize(call.state, out.length, call.name);
  });
  return out + s.slice(last);
}

/** Go's Regexp.Expand: `$1`, `${1}`, `$name`, `${name}`, `$$`; unknown groups expand to "". */
function expandTemplate(template: string, m: RegExpExecArray): string {
  if (!template.includes('$')) return template;
  charge(1 + (template.length >> 4));
  return template.replace(
    /\$(\$|\{([^}]*)\}|([\p{L}\p{Nd}_]+))?/gu,
    (whole, _t: string | undefined, braced?: string, bare?: string) => {
      if (whole === '$$') return '$';
      const name = braced ?? bare;
      if (name === undefined) return whole;
      if (braced !== undefined && !/^[\p{L}\p{Nd}_]+$/u.test(braced)) return whole;
      if (/^\d+$/.test(name)) return m[Number(name)] ?? '';
      const groups = m.groups;
      return groups !== undefined && Object.hasOwn(groups, name) ? (groups[name] ?? '') : '';
    },
  );
}

/** Go's Regexp.Split. */
function split(re: GoRegex, s: string, n: number, call: CallContext): string[] {
  if (n === 0) return [];
  if (re.source.length > 0 && s.length === 0) return [''];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  let stopped = false;
  eachMatch(re, s, n < 0 ? -1 : n, (m) => {
    if (stopped || (n > 0 && out.length === n - 1)) {
      stopped = true;
      return;
    }
    end = m.index;
    if (m.index + m[0].length !== 0) out.push(s.slice(beg, end));
    checkListSize(call.state, out.length, call.name);
    beg = m.index + m[0].length;
  });
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}
