import { KubemodError } from '../../errors/catalog.js';
import { chargeBytes } from '../active-meter.js';

/**
 * JSON Pointers (RFC 6901) as used in patch paths: `/a/b~1c` addresses member `b/c` of `a`.
 * Unescaping is lenient like Go's evanphx/json-patch: `~1` becomes `/`, then `~0` becomes `~`;
 * any other `~` sequence is kept literally.
 */

/** Escapes one reference token: `~` → `~0`, `/` → `~1`. */
export function escapePointerSegment(segment: string | number): string {
  const text = String(segment);
  if (!text.includes('~') && !text.includes('/')) return text;
  return text.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Unescapes one reference token: `~1` → `/`, then `~0` → `~`. */
export function unescapePointerSegment(segment: string): string {
  if (!segment.includes('~')) return segment;
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Builds a pointer from unescaped segments; no segments is the root pointer `""`. */
export function formatJsonPointer(segments: readonly (string | number)[]): string {
  let pointer = '';
  for (const segment of segments) pointer += '/' + escapePointerSegment(segment);
  return pointer;
}

/**
 * Splits a pointer into unescaped segments. `""` (the whole document) gives `[]`.
 * Throws `PATCH_PATH` if a non-empty pointer does not start with `/`. Charges the active work
 * meter by length (a rendered path can hold thousands of segments).
 */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  chargeBytes(pointer.length);
  if (!pointer.startsWith('/')) {
    throw new KubemodError(
      'PATCH_PATH',
      `path ${JSON.stringify(pointer)} is not a JSON pointer: it must start with "/"`,
    );
  }
  const segments = pointer.slice(1).split('/');
  // Most pointers escape nothing: no second array, no per-segment search.
  if (pointer.includes('~')) {
    for (let i = 0; i < segments.length; i++) {
      segments[i] = unescapePointerSegment(segments[i] as string);
    }
  }
  return segments;
}

/**
 * The segments of `pointer`: `known` when the caller already has them (CompiledPath.segments),
 * charged to the work meter as parsing the pointer would be; otherwise parseJsonPointer's.
 */
export function jsonPointerSegments(
  pointer: string,
  known: readonly string[] | undefined,
): readonly string[] {
  if (known === undefined) return parseJsonPointer(pointer);
  if (pointer !== '') chargeBytes(pointer.length);
  return known;
}

/**
 * Rule-load validation of a patch path (before placeholders are rendered): it must start with
 * `/`. The whole-document pointer `""` is not accepted in a rule.
 */
export function validatePatchPath(path: string): void {
  if (!path.startsWith('/')) {
    throw new KubemodError(
      'PATCH_PATH',
      `path ${JSON.stringify(path)} is not a JSON pointer: it must start with "/"`,
    );
  }
}
