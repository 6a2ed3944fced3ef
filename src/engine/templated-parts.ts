import { KubemodError } from '../errors/catalog.js';
import { activeMeter, charge } from './active-meter.js';
import { activeLookups } from './cluster/active-lookups.js';
import {
  compileSelect,
  type CompiledSelect,
  type SelectItem,
  type SelectOutcome,
} from './expr/index.js';
import { compilePath, type CompiledPath } from './patch/index.js';
import { compileTemplate, type CompiledTemplate } from './template/index.js';

/**
 * Templates in `select` and patch `path` (KubeMod #116, issue 35): a select or path holding
 * `{{ }}` is rendered as a template (same limits and work meter as values; lookups allowed), then
 * parsed. A source without `{{` is compiled exactly as before. At compile time the template is
 * parsed and the source is checked with its actions replaced by a placeholder, so that errors in
 * the static parts are field errors when the ModRule is admitted.
 */

/** Longest rendered select or path accepted (a real one is tens of characters). */
export const MAX_RENDERED_CHARS = 4_096;
/** Distinct rendered texts whose parse each templated select or path keeps. */
const CACHE_CAPACITY = 64;

const ACTION = /\{\{[\s\S]*?\}\}/g;

/** Whether `source` holds a template action. */
export function isTemplated(source: string): boolean {
  return source.includes('{{');
}

/** `source` with every action replaced by `placeholder`. */
function probe(source: string, placeholder: string): string {
  return source.replace(ACTION, placeholder);
}

/** The render context a select or path template sees besides what the caller gives. */
function renderContext(target: unknown, extra: Record<string, unknown>): Record<string, unknown> {
  return { Target: target, Namespace: namespaceOf(target), ...extra };
}

function namespaceOf(target: unknown): string {
  const session = activeLookups();
  if (session !== undefined) return session.requestNamespace;
  const metadata = (target as { metadata?: { namespace?: unknown } } | null)?.metadata;
  return typeof metadata?.namespace === 'string' ? metadata.namespace : '';
}

/**
 * Renders `template` and parses the text with `parse`, keeping up to CACHE_CAPACITY parses. A
 * cached parse is charged the units its first parse cost, so what a request spends does not
 * depend on the requests before it.
 */
function renderedParser<T>(
  template: CompiledTemplate,
  parse: (text: string) => T,
  what: string,
): (context: Record<string, unknown>) => T {
  let cache: Map<string, { readonly parsed: T; readonly units: number }> | undefined;
  return (context) => {
    const text = template.render(context, activeLookups()?.templateLimits);
    if (text.length > MAX_RENDERED_CHARS) {
      throw new KubemodError(
        'EXPR_LIMIT',
        `rendered ${what} of ${String(text.length)} characters exceeds ${String(MAX_RENDERED_CHARS)}`,
      );
    }
    charge(text.length >> 4);
    const hit = cache?.get(text);
    if (hit !== undefined) {
      charge(hit.units);
      return hit.parsed;
    }
    const meter = activeMeter();
    const before = meter?.left;
    const parsed = parse(text);
    if (meter !== undefined && before !== undefined) {
      cache ??= new Map();
      if (cache.size >= CACHE_CAPACITY) cache.clear();
      cache.set(text, { parsed, units: before - meter.left });
    }
    return parsed;
  };
}

/** Compiles a select that holds template actions (see the file comment). */
export function compileTemplatedSelect(source: string): CompiledSelect {
  const template = compileTemplate(source);
  // A rendered action may stand for a name, a number or a quoted string's content. A template
  // with control structures (range, if…) builds the expression's shape itself: it is checked
  // when rendered, and its captures are known only then.
  const probes = [probe(source, 'x'), probe(source, '0')];
  const probed = CONTROL.test(source) ? compilingOrUndefined(probes) : firstCompiling(probes);
  const parse = renderedParser(template, compileSelect, 'select');
  const compiled = (root: unknown): CompiledSelect => parse(renderContext(root, {}));
  return {
    source,
    isKindPath: false,
    captureCount: probed?.captureCount ?? Number.MAX_SAFE_INTEGER,
    evaluate: (root: unknown): unknown => compiled(root).evaluate(root),
    outcome: (root: unknown): SelectOutcome => compiled(root).outcome(root),
    items: (root: unknown): SelectItem[] => compiled(root).items(root),
  };
}

/** An action that opens, continues or closes a control structure. */
const CONTROL = /\{\{-?\s*(?:range|if|with|else|end|define|block|template)\b/;

function compilingOrUndefined(sources: readonly string[]): CompiledSelect | undefined {
  try {
    return firstCompiling(sources);
  } catch {
    return undefined;
  }
}

function firstCompiling(sources: readonly string[]): CompiledSelect {
  let first: unknown;
  for (const source of sources) {
    try {
      return compileSelect(source);
    } catch (err) {
      first ??= err;
    }
  }
  if (first instanceof KubemodError) {
    throw new KubemodError(
      first.kind,
      `${first.rawMessage()} (with its template actions replaced by a placeholder)`,
    );
  }
  throw first;
}

/** A patch path with template actions: rendered per select item, then read as a path. */
export interface TemplatedPath {
  /** The path with its actions replaced by a placeholder: what compile-time checks look at. */
  readonly probe: CompiledPath;
  render(target: unknown, item: SelectItem): string;
}

export function compileTemplatedPath(source: string): TemplatedPath {
  const template = compileTemplate(source);
  // Checked (placeholders, leading /) with its actions replaced; reported as written.
  // The probe's segments are not the path's: a templated path is split from its rendered text.
  const probed = { ...compilePath(probe(source, 'x')), source, segments: undefined };
  const parse = renderedParser(template, compilePath, 'path');
  return {
    probe: probed,
    render: (target, item) =>
      parse(
        renderContext(target, { SelectedItem: item.value, SelectKeyParts: item.keyParts }),
      ).render(item.keyParts),
  };
}
