import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseDocuments, type LoadedRules } from '../engine/load-rules.js';
import type { JsonObject } from '../engine/json.js';
import { parseManifestDocuments } from '../engine/manifest-documents.js';
import { compileDocumentsSafely } from '../rules/rule-file.js';
import type { StaticCluster } from '../engine/cluster/static-cluster.js';
import { resolveRequestNamespace, type RequestNamespace } from '../engine/request-namespace.js';
import { CliError } from './cli-io.js';

const YAML_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/**
 * Largest file the CLI reads (ModRule, resource and test files). Kubernetes objects are at most
 * about 1.5 MB and 10,000 ModRules take about 3 MB of YAML, so real inputs fit; a larger file (or
 * a device that never ends) is refused before it is parsed.
 */
export const MAX_INPUT_BYTES = 8 * 1024 * 1024;

/** Bytes read at a time by readText. */
const CHUNK_BYTES = 64 * 1024;

/** Expands files and directories (recursively, sorted) into the YAML/JSON files they hold. */
export function expandRuleFiles(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    let stat;
    try {
      stat = statSync(path);
    } catch (err) {
      throw new CliError(`${path}: cannot read: ${reason(err)}`);
    }
    if (!stat.isDirectory()) {
      files.push(path);
      continue;
    }
    const entries = readdirSync(path, { recursive: true, encoding: 'utf8' }).sort();
    for (const entry of entries) {
      const full = join(path, entry);
      if (YAML_EXTENSIONS.has(extname(entry)) && statSync(full).isFile()) files.push(full);
    }
  }
  return files;
}

/** The text of a file of at most `maxBytes` bytes (UTF-8); CliError naming the file otherwise. */
export function readText(path: string, maxBytes = MAX_INPUT_BYTES): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new CliError(`${path}: cannot read: ${reason(err)}`);
  }
  try {
    return readFd(fd, path, maxBytes);
  } finally {
    closeSync(fd);
  }
}

/** All of the process's stdin (at most `maxBytes` bytes, UTF-8), named `stdin` in errors. */
export function readStdin(maxBytes = MAX_INPUT_BYTES): string {
  return readFd(0, 'stdin', maxBytes);
}

function readFd(fd: number, path: string, maxBytes: number): string {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let read: number;
    try {
      read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
    } catch (err) {
      // A non-blocking stdin (a pipe whose writer is not done) has no data yet: wait, then retry.
      if (reason(err) === 'EAGAIN') {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      throw new CliError(`${path}: cannot read: ${reason(err)}`);
    }
    if (read === 0) break;
    total += read;
    if (total > maxBytes) {
      throw new CliError(`${path}: is larger than ${String(maxBytes)} bytes`);
    }
    chunks.push(chunk.subarray(0, read));
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** The documents of one ModRule file, parsed but not yet compiled. */
export interface RuleSource {
  /** The file, as named in error messages. */
  readonly source: string;
  readonly documents: readonly unknown[];
}

/**
 * Reads and parses the ModRule files of `paths` (files, or directories searched recursively).
 * Throws CliError for a file that cannot be read; a file that is not valid YAML is one line of
 * `errors`.
 */
export function readRuleSources(paths: readonly string[]): {
  sources: RuleSource[];
  errors: string[];
} {
  const sources: RuleSource[] = [];
  const errors: string[] = [];
  for (const file of expandRuleFiles(paths)) {
    const parsed = parseDocuments(readText(file), file);
    errors.push(...parsed.errors);
    sources.push({ source: file, documents: parsed.documents });
  }
  return { sources, errors };
}

/**
 * Compiles rule sources as the rules of requests in `defaultNamespace` (the namespace of rules
 * without `metadata.namespace`): the valid rules, and one line per refused document.
 */
export function compileRuleSources(
  sources: readonly RuleSource[],
  defaultNamespace: string,
): LoadedRules {
  const out: LoadedRules = { rules: [], errors: [] };
  for (const { source, documents } of sources) {
    const loaded = compileDocumentsSafely(documents, source, { defaultNamespace });
    out.rules.push(...loaded.rules);
    out.errors.push(...loaded.errors);
  }
  return out;
}

/**
 * The admission request's namespace for `resource` in an offline evaluation, by the engine's one
 * rule (resolveRequestNamespace): `explicit` ('' for a cluster-scoped request) for a namespaced
 * kind, else its metadata.namespace, else `default`; none for a cluster-scoped kind (the built-in
 * table, or a CustomResourceDefinition in `cluster`).
 */
export function requestNamespace(
  resource: JsonObject,
  explicit: string | undefined,
  cluster?: StaticCluster,
): RequestNamespace {
  return resolveRequestNamespace(resource, {
    given: explicit,
    scopeOf: cluster === undefined ? undefined : (group, kind) => cluster.scopeOf(group, kind),
  });
}

/** Reads the single Kubernetes object of a YAML or JSON file, as kubectl reads it. */
export function readResource(path: string): JsonObject {
  const { documents, errors } = parseManifestDocuments(readText(path), path);
  if (errors.length > 0) throw new CliError(errors.join('; '));
  const [object] = documents;
  if (
    documents.length !== 1 ||
    typeof object !== 'object' ||
    object === null ||
    Array.isArray(object)
  ) {
    throw new CliError(
      `${path}: must hold exactly one Kubernetes object, found ${String(documents.length)} document(s)`,
    );
  }
  const resource = object;
  if (typeof resource.kind !== 'string' || resource.kind === '') {
    throw new CliError(`${path}: kind: is required`);
  }
  return resource;
}

/** Why a file operation failed: its error code (ENOENT, EACCES, …) or message. */
export function reason(err: unknown): string {
  if (err instanceof Error && 'code' in err && typeof err.code === 'string') return err.code;
  return err instanceof Error ? err.message : String(err);
}
