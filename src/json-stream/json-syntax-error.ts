import { KubemodError } from '../errors/catalog.js';

/** A JSON syntax error in the catalog's words, at a byte offset of the body. */
export function syntaxError(reason: string, at: number): KubemodError {
  return new KubemodError(
    'REQUEST_MALFORMED',
    `request body is not valid JSON: ${reason} at byte ${at}`,
  );
}

/** A byte as an error message names it. */
export function describeByte(b: number): string {
  if (b < 0) return 'end of input';
  if (b > 0x20 && b < 0x7f) return `'${String.fromCharCode(b)}'`;
  return `byte 0x${b.toString(16).padStart(2, '0')}`;
}

/** An unexpected byte (-1: the end) where `expected` should be. */
export function unexpected(b: number, expected: string, at: number): KubemodError {
  return syntaxError(`unexpected ${describeByte(b)}, expected ${expected}`, at);
}
