import { KubemodError } from '../errors/catalog.js';
import { MAX_PATTERN_COST, patternCost } from './regex-cost.js';
import { charge, chargeOnce } from './active-meter.js';
import { regexEngine, type Re2Constructor, type Re2Regex } from './re2-engine.js';

/**
 * Regular expressions with RE2 syntax and semantics (as Go's regexp), matched in linear time.
 * Every regex written by a rule author goes through here: matchRegex, targetNamespaceRegex,
 * `=~` / `!~` in select expressions and the template regex functions. They run on the native
 * re2 addon, or on re2js when it is not installed (re2-engine.ts): same syntax and results.
 */
export interface GoRegex {
  readonly source: string;
  /** Unanchored search, like Go's MatchString. */
  test(input: string): boolean;
  /** The underlying RE2 object for the non-global operations (exec, split). */
  readonly re: Re2Regex;
  /** A global-flag RE2 for replace-all and find-all operations. */
  readonly global: Re2Regex;
}

/** Longest pattern accepted; RE2 itself also bounds the compiled program size. */
export const MAX_PATTERN_LENGTH = 16_384;

/** Distinct inputs whose test result each regex remembers (names, images and kinds repeat a lot). */
const TEST_MEMO_SIZE = 128;
const TEST_MEMO_MAX_INPUT = 256;

/** Work units per unit of estimated pattern cost (see patternCost), charged per compilation. */
export const REGEX_COST_UNITS = 200;

/**
 * Compiles `pattern` (RE2 syntax), charging the active meter its estimated compile cost unless
 * `charged` is false (the caller charges it: see RegexCache).
 */
export function compileRegex(pattern: string, charged = true): GoRegex {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new KubemodError(
      'REGEX_INVALID',
      `regular expression is ${pattern.length} characters long, over the ${MAX_PATTERN_LENGTH} limit`,
    );
  }
  const cost = patternCost(pattern);
  if (cost > MAX_PATTERN_COST) {
    throw new KubemodError(
      'REGEX_INVALID',
      `regular expression is too complex to compile: about ${String(cost)} units of program (repetition counts and Unicode classes multiply), over the ${String(MAX_PATTERN_COST)} limit`,
    );
  }
  // For the time RE2 takes to compile it: about 20 µs per unit of cost (a work unit is ~100 ns).
  if (charged) charge(cost * REGEX_COST_UNITS);
  // Compiled here so an invalid pattern is refused when the rule is loaded, then dropped: the
  // program (~3 KB of native memory per regex) is built again on first use, so memory follows the
  // regexes requests actually reach, not every regex of every loaded rule.
  const { RE2 } = regexEngine();
  compileOrThrow(RE2, pattern, 'u');
  let re: Re2Regex | undefined;
  let global: Re2Regex | undefined;
  // Each RE2 call converts its input to UTF-8 (about 1 µs); a small memo of recent short inputs
  // answers repeated tests (the same image or label on every request) from memory.
  let memo: Map<string, boolean> | undefined;
  return {
    source: pattern,
    get re(): Re2Regex {
      re ??= new RE2(pattern, 'u');
      return re;
    },
    get global(): Re2Regex {
      global ??= new RE2(pattern, 'gu');
      return global;
    },
    test: (input: string): boolean => {
      const known = memo?.get(input);
      if (known !== undefined) return known;
      re ??= new RE2(pattern, 'u');
      re.lastIndex = 0;
      const result = re.test(input);
      if (input.length <= TEST_MEMO_MAX_INPUT) {
        memo ??= new Map();
        if (memo.size >= TEST_MEMO_SIZE) memo.clear();
        memo.set(input, result);
      }
      return result;
    },
  };
}

function compileOrThrow(RE2: Re2Constructor, pattern: string, flags: string): void {
  try {
    new RE2(pattern, flags);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new KubemodError(
      'REGEX_INVALID',
      `invalid regular expression ${JSON.stringify(pattern)}: ${reason}`,
    );
  }
}

/**
 * A small bounded cache, keyed by pattern, for patterns only known at evaluation time (e.g.
 * `@.a =~ @.b`, the template regex functions' arguments). Literal select patterns are compiled
 * once when the rule is compiled and never reach this cache. A pattern's compile cost is charged
 * on its first use in each request, hit or miss, so a request spends the same units in a warm
 * webhook as in a fresh `dryrun` process.
 */
export class RegexCache {
  private readonly entries = new Map<string, { readonly regex: GoRegex; readonly units: number }>();

  constructor(private readonly capacity = 256) {}

  get(pattern: string): GoRegex {
    const key = `regex\u0000${pattern}`;
    const hit = this.entries.get(pattern);
    if (hit !== undefined) {
      chargeOnce(key, hit.units);
      this.entries.delete(pattern);
      this.entries.set(pattern, hit);
      return hit.regex;
    }
    const regex = compileRegex(pattern, false);
    const entry = { regex, units: patternCost(pattern) * REGEX_COST_UNITS };
    chargeOnce(key, entry.units);
    this.entries.set(pattern, entry);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    return regex;
  }
}
