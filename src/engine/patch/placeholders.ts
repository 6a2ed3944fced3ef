import { KubemodError } from '../../errors/catalog.js';
import { escapePointerSegment, validatePatchPath } from './json-pointer.js';
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
  return { source: path, parts, maxPlaceholder, render };
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
