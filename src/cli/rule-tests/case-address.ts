/**
 * How a test file's cases are addressed from outside it: by where they are (the line each starts
 * on, for `file:line` in reports and GitHub annotations) and by name (`-t`/`--case` patterns).
 */

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

/**
 * `kubemod-ts test -t/--case <pattern>` (repeatable): which cases run, by name. A pattern matches
 * a whole case name; `*` stands for any run of characters and `?` for one, as in a shell, and
 * nothing else is special (`kyverno test --test-case-selector` matches names with the same
 * wildcards). A case runs when any pattern matches it. The matcher is iterative and needs no
 * regular expression: at most (name length × pattern length) steps.
 */
export function caseSelector(patterns: readonly string[]): ((name: string) => boolean) | undefined {
  if (patterns.length === 0) return undefined;
  return (name) => patterns.some((pattern) => wildcardMatch(pattern, name));
}

/** Whether `text` as a whole matches `pattern` (`*` any run, `?` one character). */
export function wildcardMatch(pattern: string, text: string): boolean {
  const p = Array.from(pattern);
  const t = Array.from(text);
  let pi = 0;
  let ti = 0;
  // Where the last `*` was and the text position it currently stands for (backtracking point).
  let star = -1;
  let mark = 0;
  while (ti < t.length) {
    if (pi < p.length && (p[pi] === '?' || (p[pi] !== '*' && p[pi] === t[ti]))) {
      pi++;
      ti++;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++;
      mark = ti;
    } else if (star !== -1) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}
