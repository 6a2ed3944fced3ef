import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The project's regular expressions, collected from where rule authors and tests write them:
 * `matchRegex` and `targetNamespaceRegex` values, `=~` / `!~` operands of select expressions,
 * the patterns of the template regex functions (`regexMatch "…"`, …), and every string literal
 * of the regex unit tests. Read from the test fixtures, the samples (recipes included), the README
 * and docs, and the unit tests' sources, so that a regex added anywhere joins the corpus.
 */
export interface CorpusPattern {
  readonly pattern: string;
  /** Where it was first seen (a repository path). */
  readonly from: string;
}

const ROOTS = ['test/fixtures', 'samples', 'docs', 'README.md', 'src'] as const;
const TEXT_FILE = /\.(ya?ml|json|md|ts)$/;
/** All string literals of these files are patterns (the regex unit tests). */
const REGEX_TEST_FILE = /src\/engine\/regex[^/]*\.test\.ts$/;

const YAML_KEY = /\b(?:matchRegex|targetNamespaceRegex)\s*:\s*(.+)$/gm;
/** The same keys in TypeScript object literals: only a quoted value. */
const TS_KEY =
  /\b(?:matchRegex|targetNamespaceRegex)\s*:\s*(?:'((?:\\.|[^'\\\n])*)'|"((?:\\.|[^"\\\n])*)")/g;
/** This collector and the test that uses it name patterns only as examples. */
const SELF = /src\/engine\/(regex-corpus|re2js-adapter)/;
const SELECT_OPERAND = /[=!]~\s*(?:'((?:\\.|[^'\\\n])*)'|"((?:\\.|[^"\\\n])*)")/g;
const TEMPLATE_PATTERN =
  /\bregex(?:Match|Find|FindAll|ReplaceAll|ReplaceAllLiteral|Split)\s+(?:\\?"((?:\\.|[^"\\\n])*?)\\?"|`([^`\n]*)`)/g;
const SINGLE_QUOTED = /'((?:\\.|[^'\\\n])*)'/g;

export function collectCorpus(repoRoot: string): CorpusPattern[] {
  const seen = new Map<string, string>();
  const add = (pattern: string | undefined, file: string): void => {
    if (pattern !== undefined && !seen.has(pattern)) seen.set(pattern, relative(repoRoot, file));
  };
  for (const file of ROOTS.flatMap((root) => filesUnder(join(repoRoot, root)))) {
    if (SELF.test(file)) continue;
    const text = readFileSync(file, 'utf8');
    if (file.endsWith('.ts')) {
      for (const m of text.matchAll(TS_KEY)) {
        const raw = m[1] ?? m[2] ?? '';
        add(unescapeBackslashes(raw), file);
        add(unescapeBackslashes(unescapeBackslashes(raw)), file);
      }
    } else {
      for (const m of text.matchAll(YAML_KEY)) {
        for (const value of yamlScalarReadings(m[1] ?? '')) add(value, file);
      }
    }
    for (const m of text.matchAll(SELECT_OPERAND)) {
      const raw = m[1] ?? m[2] ?? '';
      add(raw, file);
      add(unescapeBackslashes(raw), file);
    }
    for (const m of text.matchAll(TEMPLATE_PATTERN)) {
      if (m[2] !== undefined) add(m[2], file);
      else {
        add(m[1], file);
        add(unescapeBackslashes(m[1] ?? ''), file);
      }
    }
    if (REGEX_TEST_FILE.test(file)) {
      for (const m of text.matchAll(SINGLE_QUOTED)) add(unescapeBackslashes(m[1] ?? ''), file);
    }
  }
  return [...seen].map(([pattern, from]) => ({ pattern, from }));
}

function filesUnder(path: string): string[] {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return [];
  if (stats.isFile()) return TEXT_FILE.test(path) ? [path] : [];
  return readdirSync(path)
    .sort()
    .flatMap((name) => (name === 'node_modules' ? [] : filesUnder(join(path, name))));
}

/** A YAML scalar as written on one line: plain, single- or double-quoted (both readings kept). */
function yamlScalarReadings(raw: string): string[] {
  const text = raw.trim();
  if (text.startsWith("'") && text.endsWith("'") && text.length >= 2) {
    return [text.slice(1, -1).replaceAll("''", "'")];
  }
  if (text.startsWith('"') && text.endsWith('"') && text.length >= 2) {
    try {
      return [JSON.parse(text) as string];
    } catch {
      return [text.slice(1, -1)];
    }
  }
  return [text.replace(/\s+#.*$/, '')];
}

/** `\\` → `\`, `\'` → `'`, `\"` → `"` (JavaScript, Go and JSON string escapes of a pattern). */
function unescapeBackslashes(raw: string): string {
  return raw.replace(/\\(["'\\])/g, '$1').replace(/\\n/g, '\n');
}
