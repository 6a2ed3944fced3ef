/**
 * Admission warnings as the API server passes them on: kubectl prints each one as
 * `Warning: <text>`. The protocol asks webhooks to keep a warning within 120 bytes (the API
 * server truncates longer ones and drops warnings past a total of 4 KiB), and a warning travels
 * in an HTTP `Warning` header, so it must be one line of printable text.
 */

/** Bytes of UTF-8 one warning may take. */
export const MAX_WARNING_BYTES = 120;

/** Warn rules named one by one in an answer; the rest are counted in one more warning. */
export const MAX_RULE_WARNINGS = 10;

/**
 * One line of printable text within MAX_WARNING_BYTES: control characters (newlines included)
 * become spaces, and a longer text is cut on a character boundary and ends with `…`.
 */
export function boundedWarning(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
  if (Buffer.byteLength(line, 'utf8') <= MAX_WARNING_BYTES) return line;
  const ellipsis = '…';
  const room = MAX_WARNING_BYTES - Buffer.byteLength(ellipsis, 'utf8');
  let out = '';
  let bytes = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > room) break;
    out += ch;
    bytes += size;
  }
  return out + ellipsis;
}

/**
 * The warnings of the matching Warn rules (each `<ns>/<name>: "<message>"`), bounded: at most
 * MAX_RULE_WARNINGS of them, each within MAX_WARNING_BYTES, then one warning counting the others.
 */
export function ruleWarnings(warnings: readonly string[]): string[] {
  const shown = warnings.slice(0, MAX_RULE_WARNINGS).map(boundedWarning);
  const more = warnings.length - shown.length;
  if (more > 0) {
    shown.push(`kubemod-ts: ${String(more)} more ModRule warning(s); see kubemod-ts dryrun`);
  }
  return shown;
}
