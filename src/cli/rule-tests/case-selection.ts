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
