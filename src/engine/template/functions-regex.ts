import { KubemodError } from '../../errors/catalog.js';
import { RegexCache, type GoRegex } from '../regex.js';
import { renderError } from './faults.js';
import { fixed, type CallContext, type FunctionFamily } from './function-table.js';
import { toIntArg, toStringArg } from './go-values.js';
import { checkStringSize } from './render-state.js';

/** Sprig's regex functions, all on RE2 (linear time) via compileRegex; never JS RegExp on user patterns. */
export function regexFunctions(): FunctionFamily {
  // Patterns are nearly always literals: compile each once per environment, not on every render.
  const cache = new RegexCache(256);
  const regex = (pattern: unknown, fn: string): GoRegex => cachedRegex(cache, pattern, fn);
  const family: Record<string, ReturnType<typeof fixed>> = {
    regexMatch: fixed(2, ([re, s]) => regex(re, 'regexMatch').test(toStringArg(s, 'regexMatch'))),
    regexFind: fixed(
      2,
      ([re, s]) => findAll(regex(re, 'regexFind'), toStringArg(s, 'regexFind'), 1)[0]?.text ?? '',
    ),
    regexFindAll: fixed(3, ([re, s, n]) =>
      findAll(
        regex(re, 'regexFindAll'),
        toStringArg(s, 'regexFindAll'),
        toIntArg(n, 'regexFindAll'),
      ).map((m) => m.text),
    ),
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
    regexSplit: fixed(3, ([re, s, n]) =>
      split(regex(re, 'regexSplit'), toStringArg(s, 'regexSplit'), toIntArg(n, 'regexSplit')),
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

interface Match {
  readonly text: string;
  readonly index: number;
  readonly groups: readonly (string | undefined)[];
  readonly named: Readonly<Record<string, string | undefined>>;
}

/** All matches left to right (at most n when n >= 0), stepping past empty matches like Go. */
function findAll(re: GoRegex, s: string, n: number): Match[] {
  const out: Match[] = [];
  if (n === 0) return out;
  const global = re.global;
  global.lastIndex = 0;
  let prevEnd = -1;
  while (n < 0 || out.length < n) {
    const m = global.exec(s);
    if (m === null) break;
    const text = m[0];
    if (text === '') {
      global.lastIndex = m.index + 1;
      // Go does not report an empty match right after a previous match.
      if (m.index === prevEnd) {
        if (m.index >= s.length) break;
        continue;
      }
    }
    out.push({ text, index: m.index, groups: Array.from(m), named: { ...(m.groups ?? {}) } });
    prevEnd = m.index + text.length;
    if (m.index >= s.length) break;
  }
  return out;
}

function replace(re: GoRegex, s: string, repl: string, expand: boolean, call: CallContext): string {
  let out = '';
  let last = 0;
  for (const m of findAll(re, s, -1)) {
    out += s.slice(last, m.index) + (expand ? expandTemplate(repl, m) : repl);
    last = m.index + m.text.length;
    checkStringSize(call.state, out.length, call.name);
  }
  return out + s.slice(last);
}

/** Go's Regexp.Expand: `$1`, `${1}`, `$name`, `${name}`, `$$`; unknown groups expand to "". */
function expandTemplate(template: string, m: Match): string {
  return template.replace(
    /\$(\$|\{([^}]*)\}|([\p{L}\p{Nd}_]+))?/gu,
    (whole, _t: string | undefined, braced?: string, bare?: string) => {
      if (whole === '$$') return '$';
      const name = braced ?? bare;
      if (name === undefined) return whole;
      if (braced !== undefined && !/^[\p{L}\p{Nd}_]+$/u.test(braced)) return whole;
      if (/^\d+$/.test(name)) return m.groups[Number(name)] ?? '';
      return m.named[name] ?? '';
    },
  );
}

/** Go's Regexp.Split. */
function split(re: GoRegex, s: string, n: number): string[] {
  if (n === 0) return [];
  if (re.source.length > 0 && s.length === 0) return [''];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of findAll(re, s, n < 0 ? -1 : n)) {
    if (n > 0 && out.length === n - 1) break;
    end = m.index;
    if (m.index + m.text.length !== 0) out.push(s.slice(beg, end));
    beg = m.index + m.text.length;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}
