import { formatFieldErrors } from '../api/index.js';
import { validateModRule } from './validate-modrule.js';
import { isKubemodError } from '../errors/catalog.js';
import { compileRule, RuleCompileError, type CompiledRule } from './rule.js';
import type { Compilers } from './compilers.js';
import { loadAllYamlBounded } from './yaml-bounded.js';
import { unquotedTemplateHint, yamlErrorLine } from './yaml-template-hint.js';

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

/**
 * Parses a (multi-document) YAML or JSON text into documents; a syntax error, or aliases or
 * nesting beyond the limits of {@link loadAllYamlBounded}, refuses the whole text.
 */
export function parseDocuments(
  text: string,
  source: string,
): { documents: unknown[]; errors: string[] } {
  const strings = new Map<string, string>();
  try {
    const documents = loadAllYamlBounded(text)
      .filter((doc) => doc !== null && doc !== undefined)
      .map((doc) => detachStrings(doc, strings));
    return { documents, errors: [] };
  } catch (err) {
    return { documents: [], errors: [yamlError(source, err, text)] };
  }
}

/**
 * One error line for a text that could not be read: `<source>: not valid YAML: <the parser's first
 * line>`, or `<source>: <message>` for a valid text too large or deep (YAML_LIMIT, DEPTH_LIMIT).
 * With the `text`, an unquoted template (`value: {{ … }}`) is named at its line and column with
 * the quoted value to write instead of the parser's reason (see unquotedTemplateHint).
 */
export function yamlError(source: string, err: unknown, text?: string): string {
  // YAML_LIMIT / DEPTH_LIMIT: the text is valid YAML, only too large or deep to accept.
  if (isKubemodError(err)) return `${source}: ${err.message}`;
  const reason = (err instanceof Error ? err.message.split('\n')[0] : String(err)) ?? '';
  const hint =
    text === undefined ? undefined : unquotedTemplateHint(text, reason, yamlErrorLine(reason));
  if (hint !== undefined) {
    return `${source}: not valid YAML: ${hint.message} (${String(hint.line)}:${String(hint.column)})`;
  }
  return `${source}: not valid YAML: ${reason}`;
}

/**
 * Copies the strings of a parsed document into one table. The YAML parser returns substrings of
 * the file text, and V8 keeps a whole text alive for any substring of 13 characters or more that
 * is still used: 10,000 rules kept ~9 MB of YAML in memory through their names, selects and
 * templates. The table also makes repeated values (`$.kind`, `Patch`, `add`, kinds) one string.
 * Dates and other non-JSON values are kept as they are.
 */
export function detachStrings(value: unknown, table = new Map<string, string>()): unknown {
  if (typeof value === 'string') {
    const known = table.get(value);
    if (known !== undefined) return known;
    // JSON.parse builds a new flat string; shorter strings are copies already.
    const copy = value.length < 13 ? value : (JSON.parse(JSON.stringify(value)) as string);
    table.set(value, copy);
    return copy;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => detachStrings(item, table));
  if (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      Object.defineProperty(copy, key, {
        value: detachStrings(child, table),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return value;
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
  const out: LoadedRules = { rules: [], errors: [] };
  flatten(documents).forEach((doc, i) => {
    compileDocument(doc, i + 1, source, options, out);
  });
  return out;
}

/** parseDocuments + compileModRules. */
export function loadModRules(text: string, source: string, options: LoadOptions): LoadedRules {
  const parsed = parseDocuments(text, source);
  const loaded = compileModRules(parsed.documents, source, options);
  return { rules: loaded.rules, errors: [...parsed.errors, ...loaded.errors] };
}

/** Validates and compiles one document into `out`, or records why it is refused. */
function compileDocument(
  doc: unknown,
  position: number,
  source: string,
  options: LoadOptions,
  out: LoadedRules,
): void {
  const where = `${source}: document ${String(position)}`;
  // compileRule reports the select/regex/template/path errors, so validation is structural here.
  const result = validateModRule(doc, { semantic: false });
  if (!result.ok) {
    out.errors.push(
      `${where}${describeDoc(doc, options.defaultNamespace)}: ${formatFieldErrors(result.errors)}`,
    );
    return;
  }
  try {
    out.rules.push(
      compileRule(result.modRule, {
        defaultNamespace: options.defaultNamespace,
        clusterNamespace: options.clusterNamespace,
        compilers: options.compilers,
      }),
    );
  } catch (err) {
    if (!(err instanceof RuleCompileError)) throw err;
    out.errors.push(
      `${where}${describeDoc(doc, options.defaultNamespace)}: ${formatFieldErrors(err.errors)}`,
    );
  }
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
