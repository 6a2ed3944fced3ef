import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { formatFieldErrors } from '../api/index.js';
import { describeError } from '../errors/catalog.js';
import {
  compileModRules,
  parseDocuments,
  type LoadedRules,
  type LoadOptions,
} from '../engine/load-rules.js';
import type { CompiledRule } from '../engine/rule.js';
import { unexpectedCompileError } from './compile-modrule.js';

/** What reading one rules file gave. */
export type RuleFileRead =
  /** The file is gone (deleted between listing and reading): it contributes no rules. */
  | { readonly kind: 'gone' }
  /**
   * The file cannot be read or is not valid YAML/JSON as a whole, e.g. caught half-written:
   * nothing of it is usable.
   */
  | { readonly kind: 'unusable'; readonly error: string }
  /** The file parsed: its valid ModRules, and one line per refused document. */
  | ParsedRuleFile;

export interface ParsedRuleFile {
  readonly kind: 'parsed';
  readonly rules: readonly CompiledRule[];
  readonly errors: readonly string[];
  /** SHA-256 of the file's text: a reload reuses this result while the text is unchanged. */
  readonly digest: string;
}

/**
 * Reads, parses and compiles one rules file. Never throws. When the text is the same as that of
 * `previous` (same digest), `previous` is returned without parsing or compiling again: a reload
 * of a directory costs only the files that changed.
 */
export async function readRuleFile(
  path: string,
  options: LoadOptions,
  previous?: ParsedRuleFile,
): Promise<RuleFileRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (isNotFound(err)) return { kind: 'gone' };
    return { kind: 'unusable', error: `${path}: cannot be read: ${describeError(err)}` };
  }
  const digest = createHash('sha256').update(text).digest('hex');
  if (previous?.digest === digest) return previous;
  const parsed = parseDocuments(text, path);
  if (parsed.errors.length > 0) return { kind: 'unusable', error: parsed.errors.join('; ') };
  const loaded = compileDocumentsSafely(parsed.documents, path, options);
  return { kind: 'parsed', rules: loaded.rules, errors: loaded.errors, digest };
}

/**
 * compileModRules, but an error it does not catalogue (a stack overflow compiling an enormous
 * expression) refuses only the document that caused it: the documents are then compiled one by
 * one, and that document is reported like any invalid one.
 */
export function compileDocumentsSafely(
  documents: readonly unknown[],
  source: string,
  options: LoadOptions,
): LoadedRules {
  try {
    return compileModRules(documents, source, options);
  } catch {
    // Fall through: find the document that threw.
  }
  const out: LoadedRules = { rules: [], errors: [] };
  flatten(documents).forEach((doc, index) => {
    const position = index + 1;
    try {
      const one = compileModRules([doc], source, options);
      out.rules.push(...one.rules);
      out.errors.push(...one.errors.map((line) => renumbered(line, source, position)));
    } catch (err) {
      out.errors.push(
        `${source}: document ${String(position)}${describeDoc(doc, options.defaultNamespace)}: ${formatFieldErrors([unexpectedCompileError(err)])}`,
      );
    }
  });
  return out;
}

/** A line about `document 1` of a one-document compile, about `document <position>` instead. */
function renumbered(line: string, source: string, position: number): string {
  const prefix = `${source}: document 1`;
  return line.startsWith(prefix)
    ? `${source}: document ${String(position)}${line.slice(prefix.length)}`
    : line;
}

function flatten(documents: readonly unknown[]): unknown[] {
  return documents.flatMap((doc) =>
    isRecord(doc) && doc.kind === 'List' && Array.isArray(doc.items)
      ? (doc.items as unknown[])
      : [doc],
  );
}

function describeDoc(doc: unknown, defaultNamespace: string): string {
  if (!isRecord(doc) || !isRecord(doc.metadata)) return '';
  const { name, namespace } = doc.metadata;
  if (typeof name !== 'string') return '';
  return ` (ModRule ${typeof namespace === 'string' ? namespace : defaultNamespace}/${name})`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === 'ENOENT';
}
