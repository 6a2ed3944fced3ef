import { createRequire } from 'node:module';

/**
 * Loading the native `re2` addon (C++ RE2), an optional dependency: the only part of the regex
 * engine choice that needs Node (re2-engine.ts). The playground's build replaces this module with
 * src/playground/engine/re2-native-browser.ts, which has no addon to load.
 */

/** The operations the engine uses: RegExp-like `exec` / `test` with `lastIndex` for `g`. */
export interface Re2Regex {
  lastIndex: number;
  exec(input: string): RegExpExecArray | null;
  test(input: string): boolean;
}

export type Re2Constructor = new (pattern: string, flags?: string) => Re2Regex;

/**
 * The addon's constructor. Throws when it is not installed, or installed without its compiled
 * binary (install scripts not run, download and build failed) or built for another Node ABI.
 */
export function requireNative(): Re2Constructor {
  const RE2 = createRequire(import.meta.url)('re2') as Re2Constructor;
  new RE2('a', 'u').test('a');
  return RE2;
}
