/**
 * Untrusted text (object names, annotations, rule messages, error messages, diffs) made safe to
 * print on a terminal. A terminal obeys control characters: ESC starts CSI/OSC sequences that
 * move the cursor, clear the screen, set the window title or write the clipboard; C1 controls
 * (U+0080–U+009F) are 8-bit forms of the same; `\r` returns to the start of the line and lets a
 * later text overwrite what came before; bidi overrides and isolates reorder what is shown
 * ("Trojan source"). Each such character is printed as a visible escape instead: `\x1b`, `\r`,
 * `\u202e`.
 *
 * Printable text, backslashes included, is left exactly as it is (a regex or a Windows path reads
 * as written), so escaping is lossless for printable text but not injective: the four characters
 * `\x1b` and an ESC print alike. Machine outputs (JSON, YAML, JUnit) stay exact; see
 * machine-text.ts.
 */

/**
 * What a terminal would act on: C0 controls and DEL, C1 controls, the line and paragraph
 * separators, and the bidi marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069). The tab is not among them (see terminalText).
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' };

function visible(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * One line of untrusted text for a terminal: every control, line break and bidi control becomes
 * a visible escape, so the text cannot act on the terminal, nor start a line that looks like the
 * program's own output. A tab is kept (it only moves to the next tab stop).
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, visible);
}

/**
 * Multi-line untrusted text (a diff, a list of errors) for a terminal: as terminalText, but `\n`
 * is kept as a line break. A `\r` is escaped even before `\n`, since on its own it lets the rest
 * of a line overwrite its beginning.
 */
export function terminalLines(text: string): string {
  return text.split('\n').map(terminalText).join('\n');
}
