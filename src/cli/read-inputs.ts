import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseDocuments } from '../engine/load-rules.js';
import type { JsonObject } from '../engine/json.js';
import { CliError } from './cli-io.js';

const YAML_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

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

export function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`${path}: cannot read: ${reason(err)}`);
  }
}

/** Reads the single Kubernetes object of a YAML or JSON file. */
export function readResource(path: string): JsonObject {
  const { documents, errors } = parseDocuments(readText(path), path);
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
  const resource = object as JsonObject;
  if (typeof resource.kind !== 'string' || resource.kind === '') {
    throw new CliError(`${path}: kind: is required`);
  }
  return resource;
}

function reason(err: unknown): string {
  if (err instanceof Error && 'code' in err && typeof err.code === 'string') return err.code;
  return err instanceof Error ? err.message : String(err);
}
