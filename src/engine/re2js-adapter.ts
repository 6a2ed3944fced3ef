import { RE2JS, RE2JSException } from 're2js';
import { translatePattern } from './re2-translate.js';

/**
 * The part of the native `re2` addon's API the engine uses (src/engine/regex.ts and the template
 * regex functions), on re2js, the pure-JavaScript port of RE2 (linear time, the same syntax): what
 * the engine runs when the addon is not installed, and always in the browser (re2-engine.ts). It
 * keeps the addon's
 * behaviour: the same JavaScript-to-RE2 pattern translation (`\uXXXX`, `(?<name>`, `\p{Letter}`),
 * RegExp-like `exec` / `test` with `lastIndex` for a global (`g`) regex, match indexes in UTF-16
 * code units, and the C++ library's wording for syntax errors. Only the flags the engine passes
 * (`u`, `g`, and `i`, `m`, `s` for completeness) are understood; the corpus test
 * (re2js-adapter.test.ts) checks it against the addon.
 */
export default class RE2 {
  /** Where the next global search starts (RegExp semantics); ignored without the `g` flag. */
  lastIndex = 0;
  readonly source: string;
  readonly flags: string;
  readonly global: boolean;
  private readonly compiled: RE2JS;

  constructor(pattern: string, flags = '') {
    this.source = pattern;
    this.flags = flags;
    this.global = flags.includes('g');
    let options = 0;
    if (flags.includes('i')) options |= RE2JS.CASE_INSENSITIVE;
    if (flags.includes('m')) options |= RE2JS.MULTILINE;
    if (flags.includes('s')) options |= RE2JS.DOTALL;
    try {
      this.compiled = RE2JS.compile(translatePattern(pattern), options);
    } catch (err) {
      throw new SyntaxError(nativeMessage(err), { cause: err });
    }
  }

  /** Like RegExp.prototype.exec: from `lastIndex` for a global regex, which it then advances. */
  exec(input: string): RegExpExecArray | null {
    const start = this.global ? this.lastIndex : 0;
    if (start > input.length) {
      this.lastIndex = 0;
      return null;
    }
    const matcher = this.compiled.matcher(input);
    if (!matcher.find(start)) {
      if (this.global) this.lastIndex = 0;
      return null;
    }
    const groups: (string | undefined)[] = [];
    for (let i = 0; i <= matcher.groupCount(); i++) groups.push(matcher.group(i) ?? undefined);
    const index = matcher.start(0);
    const result = Object.assign(groups, {
      index,
      input,
      groups: namedGroups(this.compiled.namedGroups(), groups),
    }) as unknown as RegExpExecArray;
    if (this.global) this.lastIndex = matcher.end(0);
    return result;
  }

  /** Like RegExp.prototype.test (advances `lastIndex` for a global regex, as exec does). */
  test(input: string): boolean {
    if (this.global) return this.exec(input) !== null;
    return this.compiled.test(input);
  }
}

function namedGroups(
  names: Record<string, number>,
  values: readonly (string | undefined)[],
): Record<string, string | undefined> | undefined {
  const entries = Object.entries(names);
  if (entries.length === 0) return undefined;
  const groups = Object.create(null) as Record<string, string | undefined>;
  for (const [name, index] of entries) groups[name] = values[index];
  return groups;
}

/**
 * RE2's (Go's) parse error names, as re2js words them, and as the C++ library the addon wraps
 * words them (re2/regexp.cc): the engine quotes the message in its REGEX_INVALID errors.
 */
const NATIVE_WORDING: readonly (readonly [string, string])[] = [
  ['missing closing )', 'missing )'],
  ['missing closing ]', 'missing ]'],
  ['invalid nested repetition operator', 'bad repetition operator'],
  ['invalid repeat count', 'invalid repetition size'],
  ['missing argument to repetition operator', 'no argument for repetition operator'],
  ['trailing backslash at end of expression', 'trailing \\'],
  ['invalid or unsupported Perl syntax', 'invalid perl operator'],
  ['invalid named capture', 'invalid named capture group'],
  ['invalid character class range', 'invalid character class range'],
  ['invalid character class', 'invalid character class'],
  ['invalid escape sequence', 'invalid escape sequence'],
  ['unexpected )', 'unexpected )'],
  ['invalid UTF-8', 'invalid UTF-8'],
  ['expression too large', 'pattern too large - compile failed'],
];

const PREFIX = 'error parsing regexp: ';

/** Errors the C++ library reports without the offending text. */
const WITHOUT_ARGUMENT: ReadonlySet<string> = new Set(['duplicate capture group name']);

function nativeMessage(err: unknown): string {
  if (!(err instanceof RE2JSException)) return err instanceof Error ? err.message : String(err);
  let text = err.message.startsWith(PREFIX) ? err.message.slice(PREFIX.length) : err.message;
  for (const bare of WITHOUT_ARGUMENT) if (text.startsWith(`${bare}: `)) return bare;
  for (const [go, native] of NATIVE_WORDING) {
    if (text === go) return native;
    if (text.startsWith(`${go}: `)) {
      text = text.slice(go.length + 2);
      const arg = text.startsWith('`') && text.endsWith('`') ? text.slice(1, -1) : text;
      return `${native}: ${arg}`;
    }
  }
  return text;
}
