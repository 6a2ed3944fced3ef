/**
 * The likeliest first mistake of a rule author: a Go template written as a YAML value without
 * quotes (`value: {{ .Target.metadata.name }}`). YAML reads `{{ … }}` as a flow map whose key is
 * another map, and js-yaml reports "object-based map does not support complex keys" at the
 * document's first line, which names neither the line nor the cause. This module finds the
 * unquoted template in the text and says what to write instead, at its line and column (the
 * `(line:column)` suffix the CLI prints and the playground marks).
 */

/** A plain (unquoted) value that starts with `{{`: after `key:` or a list's `-`. */
const UNQUOTED_TEMPLATE = /^(\s*(?:-\s+)*(?:[^\s#'"{[-][^#]*?:\s+|-\s+)?)(\{\{.*?)\s*(?:#.*)?$/;

/** The parser's reason for a flow map used as a key, which is how `{{ … }}` fails. */
const COMPLEX_KEY = /complex keys|must not be a mapping|nested mapping/;

export interface TemplateHint {
  /** 1-based line and column of the unquoted `{{`. */
  readonly line: number;
  readonly column: number;
  /** What the author should write, one line. */
  readonly message: string;
}

/**
 * The first unquoted template value of `text` and the advice for it, when the YAML error
 * `reason` (js-yaml's first line) is the one such a value causes, or when the error is on a line
 * holding one. Undefined when the error has another cause.
 */
export function unquotedTemplateHint(
  text: string,
  reason: string,
  errorLine?: number,
): TemplateHint | undefined {
  const lines = text.split('\n');
  const at = (index: number): TemplateHint | undefined => {
    const match = UNQUOTED_TEMPLATE.exec(lines[index] ?? '');
    if (match === null) return undefined;
    const lead = match[1] ?? '';
    const value = match[2] ?? '';
    if (!value.includes('}}')) return undefined;
    return {
      line: index + 1,
      column: lead.length + 1,
      message:
        `line ${String(index + 1)}: the template ${clip(value)} is not quoted, so YAML reads ` +
        `it as a map; write it quoted: ${lead.trim()}${lead.trim() === '' ? '' : ' '}${quoted(value)}`,
    };
  };
  if (errorLine !== undefined && errorLine > 1) {
    const onLine = at(errorLine - 1);
    if (onLine !== undefined) return onLine;
  }
  if (!COMPLEX_KEY.test(reason)) return undefined;
  for (let index = 0; index < lines.length; index++) {
    const found = at(index);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The value in YAML quotes: single unless it holds a single quote and no double one. */
function quoted(value: string): string {
  if (value.includes("'") && !value.includes('"')) return `"${value.replaceAll('\\', '\\\\')}"`;
  return `'${value.replaceAll("'", "''")}'`;
}

function clip(value: string): string {
  return value.length <= 60 ? value : `${value.slice(0, 57)}…`;
}

/** The (line:column) js-yaml appends to its message's first line, if any. */
export function yamlErrorLine(reason: string): number | undefined {
  const match = /\((\d+):\d+\)\s*$/.exec(reason);
  return match === null ? undefined : Number(match[1]);
}
