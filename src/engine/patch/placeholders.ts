import { KubemodError } from '../../errors/catalog.js';
import { escapePointerSegment, unescapePointerSegment, validatePatchPath } from './json-pointer.js';
import { chargeBytes } from '../active-meter.js';

/**
 * Path placeholders: `#0`, `#1`, … in a patch path stand for the index (or key) captured by the
 * first, second, … wildcard/filter step of the op's `select`. As in KubeMod, a `#` followed by
 * decimal digits is a placeholder wherever it appears; any other `#` is literal.
 */

/** One piece of a compiled path: literal (already escaped) pointer text, or a placeholder. */
export type PathPart = { readonly literal: string } | { readonly placeholder: number };

/** A patch path pre-split at rule load, rendered once per select result. */
export interface CompiledPath {
  /** The path as written in the rule. */
  readonly source: string;
  readonly parts: readonly PathPart[];
  /** The highest `#N` in the path, or -1 when it has none. */
  readonly maxPlaceholder: number;
  /**
   * The JSON pointer for one select result. String keys are escaped (`/` → `~1`, `~` → `~0`).
   * Throws `PATCH_PLACEHOLDER` if the path uses a placeholder beyond the captured ones.
   */
  render(keyParts: readonly (string | number)[]): string;
  /**
   * The same pointer as unescaped segments, what parseJsonPointer would make of `render`'s result,
   * without splitting a string per operation: a path without placeholders gives one array made on
   * first use (shared, never modified), a path with some an array per call. Undefined for the rare
   * path whose literal text ends with `~` just before a placeholder. Call it after `render` with
   * the same keyParts: it does not check or charge them again.
   */
  readonly segments: ((keyParts: readonly (string | number)[]) => readonly string[]) | undefined;
}

const PLACEHOLDER = /#(\d+)/g;

/** Compiles a patch path; throws `PATCH_PATH` if it does not start with `/`. */
export function compilePath(path: string): CompiledPath {
  validatePatchPath(path);
  const parts: PathPart[] = [];
  let maxPlaceholder = -1;
  let last = 0;
  for (const match of path.matchAll(PLACEHOLDER)) {
    if (match.index > last) parts.push({ literal: path.slice(last, match.index) });
    const index = Number(match[1]);
    parts.push({ placeholder: index });
    maxPlaceholder = Math.max(maxPlaceholder, index);
    last = match.index + match[0].length;
  }
  if (last < path.length) parts.push({ literal: path.slice(last) });
  return placeholderPath(path, parts.slice(), maxPlaceholder);
}

/**
 * Kept apart so `render` retains only what it uses. `parts` is an exact-size copy: arrays grown by
 * push keep spare capacity, and compiled rules live as long as the process.
 */
function placeholderPath(
  path: string,
  parts: readonly PathPart[],
  maxPlaceholder: number,
): CompiledPath {
  const render = (keyParts: readonly (string | number)[]): string => {
    if (maxPlaceholder < 0) return path;
    let out = '';
    for (const part of parts) {
      if ('literal' in part) {
        out += part.literal;
        continue;
      }
      const key = keyParts[part.placeholder];
      if (key === undefined) {
        throw new KubemodError('PATCH_PLACEHOLDER', placeholderMessage(path, part, keyParts));
      }
      out += escapePointerSegment(key);
    }
    // A placeholder filled from a `..` capture can be thousands of segments long.
    chargeBytes(out.length);
    return out;
  };
  const segments = pathSegments(path, parts, maxPlaceholder);
  return { source: path, parts, maxPlaceholder, render, segments };
}

function placeholderMessage(
  path: string,
  part: { readonly placeholder: number },
  keyParts: readonly (string | number)[],
): string {
  const captured =
    keyParts.length === 0
      ? 'the select captured no indexes'
      : `the select captured only ${keyParts.length} ${keyParts.length === 1 ? 'index' : 'indexes'} (#0…#${keyParts.length - 1})`;
  return `path ${JSON.stringify(path)} uses placeholder #${part.placeholder} but ${captured}`;
}

/**
 * CompiledPath.segments, unescaped piece by piece: a literal's pieces between `/`s, and a
 * placeholder's key as it is (escaped by render, parseJsonPointer gives it back unchanged). That is
 * what parseJsonPointer gives for the whole path, since no escape can span a literal and a key: an
 * escaped key never ends with `~`, and a literal that does just before a placeholder (`/a~#0`,
 * where the key may complete the escape) is left to parseJsonPointer.
 */
function pathSegments(
  path: string,
  parts: readonly PathPart[],
  maxPlaceholder: number,
): CompiledPath['segments'] {
  const endsInTilde = parts.some(
    (part, i) => 'literal' in part && part.literal.endsWith('~') && i < parts.length - 1,
  );
  if (endsInTilde) return undefined;
  // Split on first use: paths rendered from templates are compiled per request and never use it.
  let pieces: readonly (readonly string[] | number)[] | undefined;
  let fixed: readonly string[] | undefined;
  return (keyParts) => {
    if (fixed !== undefined) return fixed;
    pieces ??= parts.map((part) =>
      'literal' in part ? part.literal.split('/').map(unescapePointerSegment) : part.placeholder,
    );
    if (maxPlaceholder >= 0) return joinPieces(pieces, keyParts);
    fixed = Object.freeze(joinPieces(pieces, keyParts));
    return fixed;
  };
}

/** The segments of a path from its literals (split at `/`) and placeholder keys. */
function joinPieces(
  pieces: readonly (readonly string[] | number)[],
  keyParts: readonly (string | number)[],
): string[] {
  const segments: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (typeof piece === 'number') {
      current += String(keyParts[piece]);
      continue;
    }
    current += piece[0] ?? '';
    for (let i = 1; i < piece.length; i++) {
      segments.push(current);
      current = piece[i] ?? '';
    }
  }
  segments.push(current);
  // The path's leading `/` made an empty first segment.
  segments.shift();
  return segments;
}
