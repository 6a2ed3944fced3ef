import { loadAll, YAMLException, type Schema } from 'js-yaml';
import { KubemodError } from '../errors/catalog.js';
import { MAX_VALUE_DEPTH } from './work-limits.js';
import { charge } from './active-meter.js';

/**
 * YAML reading that cannot balloon. js-yaml returns an alias as a second reference to its anchor's
 * value, so a document is a DAG (even a cycle: `a: &a [*a]`) whose expanded tree can be
 * exponentially larger than its text ("billion laughs": a 600-byte file of ten anchors, each a list
 * of ten aliases of the previous one, expands to 10^10 nodes). Whatever walks the result later
 * (validation, copying, conversion to JSON) walks the expansion, so the expansion is bounded here:
 * documents with aliases are turned into plain trees (every alias its own copy) by an iterative
 * walk that counts the nodes it builds and refuses the text past a limit linear in its length.
 *
 * The default limit is `MIN_NODES + 2 × text.length` nodes (all documents together). Without
 * aliases a node takes at least one character of text (`-\n-\n`, `[1,1]`, `{a,b}` all spend one
 * or more characters per value), so a text without aliases never reaches it; with aliases, texts
 * may expand to about twice their size, or to MIN_NODES for short texts, which any real use of
 * anchors (a shared label map, a repeated container) fits in.
 *
 * Nesting is limited to MAX_VALUE_DEPTH, both while parsing (js-yaml's `maxDepth`; its parser is
 * recursive and would overflow the stack a few thousand levels down) and after expansion (an alias
 * of a deep value placed deep down, or a cycle). Errors: `YAML_LIMIT` for aliases that expand too
 * far, `DEPTH_LIMIT` for nesting, js-yaml's YAMLException for a syntax error.
 */

/** Work units charged per character parsed (see WorkMeter: a unit is about 100 ns). */
export const YAML_UNITS_PER_CHAR = 2;

/** Nodes any text may expand to, however short. */
export const MIN_NODES = 10_000;

export interface BoundedYamlOptions {
  /** Most nodes all documents may hold once their aliases are expanded (default: see above). */
  readonly maxNodes?: number | undefined;
  /** Deepest nesting of collections (default MAX_VALUE_DEPTH). */
  readonly maxDepth?: number | undefined;
  readonly schema?: Schema | undefined;
  /** js-yaml's `json` option: duplicate keys keep the last value instead of failing. */
  readonly json?: boolean | undefined;
}

/** The default node limit for a text of `length` characters. */
export function defaultMaxNodes(length: number): number {
  return MIN_NODES + 2 * length;
}

/** Parses the single document of `text` (an empty text gives `undefined`, as js-yaml's `load`). */
export function loadYamlBounded(text: string, options: BoundedYamlOptions = {}): unknown {
  const documents = loadAllYamlBounded(text, options);
  if (documents.length > 1) {
    throw new YAMLException('expected a single document in the stream, but found more');
  }
  return documents[0];
}

/** Parses every document of `text`, each a plain tree. */
export function loadAllYamlBounded(text: string, options: BoundedYamlOptions = {}): unknown[] {
  // js-yaml reads 3–10 characters per microsecond: about two units per character.
  charge(text.length * YAML_UNITS_PER_CHAR);
  const maxDepth = options.maxDepth ?? MAX_VALUE_DEPTH;
  let documents: unknown[];
  try {
    documents = loadAll(text, {
      maxDepth,
      ...(options.schema === undefined ? {} : { schema: options.schema }),
      ...(options.json === undefined ? {} : { json: options.json }),
    });
  } catch (err) {
    if (err instanceof RangeError) throw nestingError(maxDepth, ' (the parser ran out of stack)');
    if (err instanceof YAMLException && err.reason.startsWith('nesting exceeded maxDepth')) {
      const at = err.mark === undefined ? '' : ` (line ${String(err.mark.line + 1)})`;
      throw nestingError(maxDepth, at, { cause: err });
    }
    throw err;
  }
  // Without `*` the text has no alias, so every value is its own tree and no deeper than the
  // parser allowed: nothing to check or copy (the common case: patch values, most rule files).
  if (!text.includes('*')) return documents;
  const maxNodes = options.maxNodes ?? defaultMaxNodes(text.length);
  const walk = measure(documents, maxNodes, maxDepth);
  charge(walk.nodes);
  return walk.shared ? documents.map(copyTree) : documents;
}

function nestingError(
  maxDepth: number,
  where: string,
  options?: { cause?: unknown },
): KubemodError {
  return new KubemodError(
    'DEPTH_LIMIT',
    `YAML nests deeper than ${String(maxDepth)} levels${where}`,
    undefined,
    options,
  );
}

type Collection = unknown[] | Map<unknown, unknown> | Record<string, unknown>;

function isCollection(value: unknown): value is Collection {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value) || value instanceof Map) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Values of a collection (Map keys are scalars or refused later, so they are not followed). */
function childrenOf(value: Collection): Iterable<unknown> {
  if (Array.isArray(value)) return value;
  if (value instanceof Map) return value.values();
  return Object.values(value);
}

/**
 * Walks the expansion of `documents` without building it: counts its nodes (throwing YAML_LIMIT
 * past `maxNodes`, so the walk itself is bounded), checks its depth and tells whether any
 * collection is reached twice (an alias, or a merge key sharing values).
 */
function measure(
  documents: readonly unknown[],
  maxNodes: number,
  maxDepth: number,
): { nodes: number; shared: boolean } {
  const seen = new Set<Collection>();
  let shared = false;
  let nodes = 0;
  const values: unknown[] = [...documents];
  const depths: number[] = documents.map(() => 1);
  for (;;) {
    const value = values.pop();
    const depth = depths.pop();
    if (depth === undefined) break;
    nodes++;
    if (nodes > maxNodes) {
      throw new KubemodError(
        'YAML_LIMIT',
        `YAML aliases expand to more than ${String(maxNodes)} nodes (the limit for a text of ${String(Math.max(0, (maxNodes - MIN_NODES) / 2))} characters)`,
      );
    }
    if (!isCollection(value)) continue;
    if (depth > maxDepth) {
      throw new KubemodError(
        'DEPTH_LIMIT',
        `YAML nests deeper than ${String(maxDepth)} levels once its aliases are expanded (or an alias refers to a node that contains it)`,
      );
    }
    if (seen.has(value)) shared = true;
    else seen.add(value);
    for (const child of childrenOf(value)) {
      values.push(child);
      depths.push(depth + 1);
    }
  }
  return { nodes, shared };
}

function emptyLike(value: Collection): Collection {
  if (Array.isArray(value)) return [];
  if (value instanceof Map) return new Map<unknown, unknown>();
  return Object.getPrototypeOf(value) === null
    ? (Object.create(null) as Record<string, unknown>)
    : {};
}

/** A copy of `child` for the slot being filled: scalars as they are, collections empty for now. */
function slotFor(child: unknown, pending: [Collection, Collection][]): unknown {
  if (!isCollection(child)) return child;
  const copy = emptyLike(child);
  pending.push([child, copy]);
  return copy;
}

/**
 * A tree copy of a (measured, hence bounded and acyclic) DAG, built iteratively: each collection
 * is filled in its original order, its child collections created empty in place and filled later.
 */
function copyTree(root: unknown): unknown {
  const pending: [Collection, Collection][] = [];
  const result = slotFor(root, pending);
  for (;;) {
    const task = pending.pop();
    if (task === undefined) break;
    const [source, target] = task;
    if (Array.isArray(source)) {
      const out = target as unknown[];
      for (const child of source) out.push(slotFor(child, pending));
    } else if (source instanceof Map) {
      const out = target as Map<unknown, unknown>;
      for (const [key, child] of source) out.set(key, slotFor(child, pending));
    } else {
      const out = target as Record<string, unknown>;
      for (const key of Object.keys(source)) {
        // defineProperty: a `__proto__` key stays an own member instead of setting the prototype.
        Object.defineProperty(out, key, {
          value: slotFor(source[key], pending),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
  }
  return result;
}
