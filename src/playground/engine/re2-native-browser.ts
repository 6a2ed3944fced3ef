/**
 * Stands in for src/engine/re2-native.ts in the page's bundle: a browser has no native addon, so
 * the engine runs its regexes on re2js (src/engine/re2-engine.ts), as it does in Node when the
 * addon is not installed. The page prints no notice: re2js is what it always uses.
 */
export function requireNative(): never {
  throw new Error('a browser has no native re2 addon');
}
