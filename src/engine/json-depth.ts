/**
 * The deepest nesting of arrays and objects a request body may have. Kubernetes cannot send
 * anything deeper: Go's encoding/json, which the API server uses, refuses documents nested more
 * than 10,000 levels. The limit matters because V8's JSON.parse slows down sharply with depth
 * (a 3 MB body of a million `[` took 0.6 s to parse), so depth is checked before parsing.
 */
export const MAX_JSON_DEPTH = 10_000;

const OPEN_BRACE = 0x7b; // {
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACE = 0x7d; // }
const CLOSE_BRACKET = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/** True when a JSON text nests deeper than `maxDepth`; texts too short to do so are not scanned. */
export function exceedsJsonDepth(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  return text.length > maxDepth && jsonNestingDepth(text, maxDepth) > maxDepth;
}

/**
 * True when a JSON text nests at most `limit` deep. A text with at most `limit` opening brackets
 * (`{` and `[`, counted inside strings too) cannot nest deeper, since every level opens with one
 * of its own: those are counted with indexOf (native), stopping at the first one over the limit,
 * which costs a fraction of the full scan on the small bodies most admission requests are. Any
 * other text gets the full scan (jsonNestingDepth).
 */
export function jsonDepthAtMost(text: string, limit: number): boolean {
  return openingBracketsAtMost(text, limit) || jsonNestingDepth(text, limit) <= limit;
}

function openingBracketsAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      count++;
      if (count > limit) return false;
    }
  }
  return true;
}

/**
 * The deepest nesting in a JSON text, or `stopAbove + 1` as soon as it goes deeper than
 * `stopAbove`. One pass over the text, no allocation; brackets inside strings do not count. The
 * text need not be valid JSON (JSON.parse judges that afterwards). Strings, most of a Kubernetes
 * object's bytes, are skipped with indexOf (native) rather than a character at a time: the scan of
 * every admission body costs a fraction of its JSON.parse.
 */
export function jsonNestingDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const byte = text.charCodeAt(i);
    if (byte === QUOTE) {
      i = closingQuote(text, i);
      if (i === -1) return deepest;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    }
  }
  return deepest;
}

/**
 * The index of the quote that ends the string opened at `open` (a quote preceded by an even run
 * of backslashes inside the string), or -1 when the string never ends.
 */
function closingQuote(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote !== -1) {
    let backslashes = 0;
    for (let j = quote - 1; j > open && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}
