import type { Token } from './lexer.js';

/** Hints that make select syntax errors say what to write instead (see parser.ts). */

/** The message for a `[` (at `open`) not closed after `what`: it says a `]` is expected. */
export function unclosed(open: number, what: string, found: Token): string {
  const end = found.kind === 'eof' ? 'the expression ends' : `found ${JSON.stringify(found.text)}`;
  return `the "[" at position ${String(open)} is not closed: expected "]" after ${what} but ${end}`;
}

/**
 * A hint for an identifier after a `/` or `-` operator inside a path, as in
 * `$.metadata.labels.app.kubernetes.io/name`: such a key must be quoted in brackets. For a key
 * of `labels` or `annotations` the hint shows the whole path written so; otherwise the key.
 */
export function quotedKeyHint(source: string, before: Token | undefined, ident: Token): string {
  if (before?.kind !== 'op' || (before.text !== '/' && before.text !== '-')) return '';
  const end = ident.pos + ident.text.length;
  const head = source.slice(0, before.pos);
  const map = /\.(labels|annotations)\./g;
  let last: RegExpExecArray | null = null;
  for (let m = map.exec(head); m !== null; m = map.exec(head)) last = m;
  if (last !== null) {
    const base = source.slice(0, last.index + last[0].length - 1);
    const key = source.slice(last.index + last[0].length, end);
    return `; a key holding "." or "${before.text}" must be quoted in brackets: ${base}[${JSON.stringify(key)}]`;
  }
  const key = source.slice(head.lastIndexOf('.') + 1, end);
  return `; a key holding "${before.text}" must be quoted in brackets: [${JSON.stringify(key)}]`;
}
