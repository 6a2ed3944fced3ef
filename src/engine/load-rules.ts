import { loadAll } from 'js-yaml';
import { formatFieldErrors, validateModRule } from '../api/index.js';
import { compileRule, RuleCompileError, type CompiledRule } from './rule.js';
import type { Compilers } from './compilers.js';

export interface LoadOptions {
  /** Namespace for rules without `metadata.namespace`. */
  readonly defaultNamespace: string;
  readonly clusterNamespace?: string | undefined;
  /** Shared compilers (see cachingCompilers) when many rules are loaded into one process. */
  readonly compilers?: Compilers | undefined;
}

export interface LoadedRules {
  readonly rules: CompiledRule[];
  /** One line per refused document: `<source>: document <n> (ModRule <ns>/<name>): <field>: <reason>; …` */
  readonly errors: string[];
}

/** Parses a (multi-document) YAML or JSON text into documents; a syntax error refuses the whole text. */
export function parseDocuments(
  text: string,
  source: string,
): { documents: unknown[]; errors: string[] } {
  try {
    const documents = loadAll(text).filter((doc) => doc !== null && doc !== undefined);
    return { documents, errors: [] };
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { documents: [], errors: [`${source}: not valid YAML: ${reason ?? ''}`] };
  }
}

/**
 * Validates and compiles ModRules from already-parsed documents (a `List` is flattened). Invalid
 * documents are reported by source, position and field; the valid ones are returned.
 */
export function compileModRules(
  documents: readonly unknown[],
  source: string,
  options: LoadOptions,
): LoadedRules {
  const rules: CompiledRule[] = [];
  const errors: string[] = [];
  flatten(documents).forEach((doc, i) => {
    const where = `${source}: document ${String(i + 1)}`;
    // compileRule reports the select/regex/template/path errors, so validation is structural here.
    const result = validateModRule(doc, { semantic: false });
    if (!result.ok) {
      errors.push(
        `${where}${describeDoc(doc, options.defaultNamespace)}: ${formatFieldErrors(result.errors)}`,
      );
      return;
    }
    try {
      rules.push(
        compileRule(result.modRule, {
          defaultNamespace: options.defaultNamespace,
          clusterNamespace: options.clusterNamespace,
          compilers: options.compilers,
        }),
      );
    } catch (err) {
      if (!(err instanceof RuleCompileError)) throw err;
      errors.push(
        `${where}${describeDoc(doc, options.defaultNamespace)}: ${formatFieldErrors(err.errors)}`,
      );
    }
  });
  return { rules, errors };
}

/** parseDocuments + compileModRules. */
export function loadModRules(text: string, source: string, options: LoadOptions): LoadedRules {
  const parsed = parseDocuments(text, source);
  const loaded = compileModRules(parsed.documents, source, options);
  return { rules: loaded.rules, errors: [...parsed.errors, ...loaded.errors] };
}

function flatten(documents: readonly unknown[]): unknown[] {
  return documents.flatMap((doc) => {
    if (isRecord(doc) && doc.kind === 'List' && Array.isArray(doc.items))
      return doc.items as unknown[];
    return [doc];
  });
}

function describeDoc(doc: unknown, defaultNamespace: string): string {
  if (!isRecord(doc) || !isRecord(doc.metadata)) return '';
  const { name, namespace } = doc.metadata;
  if (typeof name !== 'string') return '';
  const ns = typeof namespace === 'string' ? namespace : defaultNamespace;
  return ` (ModRule ${ns}/${name})`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
