import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { loadAll } from 'js-yaml';

/**
 * What the schema tests validate: the ModRules and test files of samples/, and the ModRules in
 * the YAML code blocks of README.md and docs/*.md, each with where it came from; and an ajv
 * validator of the published schemas (ajv 6, draft-07, as yaml-language-server reads them).
 */

export interface Found {
  /** `samples/recipes/x/modrules.yaml#2`, `docs/lookups.md:120#0`. */
  readonly where: string;
  readonly document: unknown;
}

/** The YAML files below `dir` (recursively), relative to `root`, sorted. */
export function yamlFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(join(root, at), { withFileTypes: true })) {
      const path = `${at}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.ya?ml$/.test(entry.name)) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

function isModRule(doc: unknown): boolean {
  return typeof doc === 'object' && doc !== null && (doc as { kind?: unknown }).kind === 'ModRule';
}

/**
 * The ModRule documents of a YAML text: top-level ones, items of a List, and the inline rules of
 * a test file (`rules: [...]`).
 */
export function modRulesIn(text: string, where: string): Found[] {
  const out: Found[] = [];
  loadAll(text).forEach((doc, i) => {
    const record = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>) : {};
    const nested = record.kind === 'List' ? record.items : record.rules;
    const items = Array.isArray(nested) ? nested : [doc];
    items.forEach((item: unknown, j) => {
      const at = items === nested ? `${where}#${String(i)}[${String(j)}]` : `${where}#${String(i)}`;
      if (isModRule(item)) out.push({ where: at, document: item });
    });
  });
  return out;
}

/** Lines that say `kind: ModRule` in a YAML text (to check none was missed). */
export function modRuleLines(text: string): number {
  return text.split('\n').filter((l) => /^\s*(- )?kind:\s*ModRule\s*(#.*)?$/.test(l)).length;
}

/** The fenced ```yaml blocks of a Markdown text, with the line each starts on. */
export function yamlBlocks(markdown: string): { line: number; text: string }[] {
  const blocks: { line: number; text: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*```ya?ml\s*$/.test(lines[i] ?? '')) continue;
    const start = i + 1;
    const indent = (lines[i] ?? '').indexOf('`');
    let end = start;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end] ?? '')) end++;
    const body = lines.slice(start, end).map((l) => l.slice(Math.min(indent, l.search(/\S|$/))));
    blocks.push({ line: start + 1, text: body.join('\n') });
    i = end;
  }
  return blocks;
}

/** Every ModRule of README.md and docs/*.md code blocks. */
export function modRulesInDocs(root: string): { found: Found[]; lines: number } {
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((n) => n.endsWith('.md'))
      .sort()
      .map((n) => `docs/${n}`),
  ];
  const found: Found[] = [];
  let lines = 0;
  for (const file of files) {
    for (const block of yamlBlocks(readFileSync(join(root, file), 'utf8'))) {
      const count = modRuleLines(block.text);
      if (count === 0) continue;
      lines += count;
      found.push(...modRulesIn(block.text, `${file}:${String(block.line)}`));
    }
  }
  return { found, lines };
}

/** Every ModRule of samples/ (rule files, recipes, and the inline rules of test files). */
export function modRulesInSamples(root: string): Found[] {
  const out: Found[] = [];
  for (const file of yamlFiles(root, 'samples')) {
    const text = readFileSync(join(root, file), 'utf8');
    out.push(...modRulesIn(text, file));
  }
  return out;
}

/** A validator of `schema` that answers with the errors as `<path>: <message>` lines. */
export function validator(schema: object): (document: unknown) => string[] {
  const ajv = new Ajv({ allErrors: true });
  const validate = ajv.compile(schema);
  return (document) => {
    if (validate(document) === true) return [];
    return (validate.errors ?? []).map((e) => {
      const extra = 'additionalProperty' in e.params ? ` (${e.params.additionalProperty})` : '';
      return `${e.dataPath || '/'}: ${e.message ?? 'invalid'}${extra}`;
    });
  };
}
