/**
 * Where each case of a test file starts: the 1-based line of each item of the top-level `cases:`
 * list, for the reports and the GitHub annotations of a failing case (`file:line`). Test files are
 * written by hand in block-style YAML, which this reads line by line without a second parser:
 *
 *     cases:
 *       - name: adds the owner label     ← line of cases[0]
 *         resource: pod.yaml
 *       - name: …                        ← line of cases[1]
 *
 * A list written in flow style or JSON (`cases: [...]`, `{"cases": [...]}`) has no item lines:
 * its cases are placed at the `cases` key's line, or at line 1 when it has none.
 */
export function caseLines(text: string): readonly number[] & { readonly fallback: number } {
  const lines = text.split(/\r?\n/);
  const found: number[] = [];
  const key = lines.findIndex((line) => /^["']?cases["']?\s*:/.test(line));
  const fallback = key === -1 ? fallbackLine(lines) : key + 1;
  if (key !== -1 && /^["']?cases["']?\s*:\s*(#.*)?$/.test(lines[key] ?? '')) {
    let indent: number | undefined;
    for (let i = key + 1; i < lines.length; i++) {
      const line = lines[i] ?? '';
      const content = line.trimStart();
      if (content === '' || content.startsWith('#')) continue;
      if (/^(---|\.\.\.)(\s|$)/.test(line)) break;
      const at = line.length - content.length;
      const item = /^-(\s|$)/.test(content);
      if (indent === undefined) {
        if (!item) break;
        indent = at;
      }
      if (at < indent || (at === indent && !item)) break;
      if (at === indent) found.push(i + 1);
    }
  }
  return Object.assign(found, { fallback });
}

/** A JSON file's `"cases"` key line, else 1. */
function fallbackLine(lines: readonly string[]): number {
  const at = lines.findIndex((line) => /["']cases["']\s*:/.test(line));
  return at === -1 ? 1 : at + 1;
}

/** The line of case `index` (its list item, else the fallback). */
export function caseLine(lines: ReturnType<typeof caseLines>, index: number): number {
  return lines[index] ?? lines.fallback;
}
