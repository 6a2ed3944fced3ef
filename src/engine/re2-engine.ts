import Re2js from './re2js-adapter.js';
import { requireNative, type Re2Constructor } from './re2-native.js';

/**
 * Which RE2 implementation runs the rules' regexes. Both have RE2's syntax and semantics (as Go's
 * regexp) and match in linear time, the contract of DESIGN.md; they give identical results on the
 * project's regex corpus (re2js-adapter.test.ts) and on the regex tests (regex.test.ts runs on
 * both).
 *
 * - `re2`: the native addon (C++ RE2), the fastest. It is an optional dependency: its install
 *   script downloads a prebuilt binary from GitHub or compiles one with node-gyp, and either can
 *   fail (no network to GitHub, no compiler or Node headers, install scripts not allowed).
 * - `re2js`: the pure-JavaScript port of RE2 (src/engine/re2js-adapter.ts), slower but always
 *   there. The playground page runs it in the browser (scripts/playground/build-page.ts swaps
 *   re2-native.ts, which loads the addon, for one that has none).
 *
 * Work units do not depend on the implementation, so a rule's outcome does not either.
 */

export type { Re2Constructor, Re2Regex } from './re2-native.js';

export type RegexEngineName = 're2' | 're2js';

export const REGEX_ENGINE_NAMES: readonly RegexEngineName[] = ['re2', 're2js'];

export interface RegexEngine {
  readonly name: RegexEngineName;
  readonly RE2: Re2Constructor;
  /** Why the native addon is not used, when it was wanted and could not be loaded. */
  readonly fallbackReason?: string | undefined;
}

/** Loads the native addon (throws when it is not installed or not built for this Node). */
export type NativeLoader = () => Re2Constructor;

let current: RegexEngine | undefined;

/** The engine in use: the one chosen with useRegexEngine, else the native addon if it loads. */
export function regexEngine(): RegexEngine {
  current ??= loadRegexEngine(undefined);
  return current;
}

/** Sets the engine regexes compiled from now on use; undefined goes back to the automatic choice. */
export function setRegexEngine(engine: RegexEngine | undefined): void {
  current = engine;
}

/**
 * Chooses the engine by name (tests); undefined goes back to the automatic choice. Throws when
 * `re2` is asked for and cannot be loaded.
 */
export function useRegexEngine(name: RegexEngineName | undefined): RegexEngine {
  const engine = loadRegexEngine(name);
  if (name === 're2' && engine.name !== 're2') {
    throw new Error(`the native re2 addon cannot be loaded: ${engine.fallbackReason ?? ''}`);
  }
  setRegexEngine(name === undefined ? undefined : engine);
  return engine;
}

/** `prefer` re2js, or (undefined, re2) the native addon with re2js as the fallback. */
export function loadRegexEngine(
  prefer: RegexEngineName | undefined,
  loadNative: NativeLoader = requireNative,
): RegexEngine {
  if (prefer === 're2js') return { name: 're2js', RE2: Re2js };
  try {
    return { name: 're2', RE2: loadNative() };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const reason = (message.split('\n', 1)[0] ?? '').trim() || 'unknown error';
    return { name: 're2js', RE2: Re2js, fallbackReason: reason };
  }
}

/** The one line a command prints on stderr when the native addon could not be loaded. */
export function fallbackNotice(engine: RegexEngine): string | undefined {
  if (engine.fallbackReason === undefined) return undefined;
  return (
    `kubemod-ts: notice: the native re2 addon is not available (${engine.fallbackReason}); ` +
    'regexes run on re2js, the pure-JavaScript RE2 port: same syntax and results, linear time, ' +
    'slower (docs/install.md, "The CLI without a checkout")'
  );
}
