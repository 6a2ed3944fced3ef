/** Reading the committed benchmark inputs (see bench/generate-fixtures.ts). */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../test/cluster/binaries.js';
import { loadModRules } from '../../src/engine/load-rules.js';
import { cachingCompilers } from '../../src/engine/compilers.js';
import { RuleStore } from '../../src/engine/store.js';
import type { JsonObject } from '../../src/engine/json.js';
import { CLUSTER_NAMESPACE } from './fixture-rules.js';

/** bench/fixtures, whether this runs from the sources or compiled in dist/bench. */
export const FIXTURES = join(repoRoot(), 'bench', 'fixtures');
export const OBJECT_NAMES = [
  'pod-2kb',
  'service-2kb',
  'deployment-10kb',
  'deployment-100kb',
] as const;
export type ObjectName = (typeof OBJECT_NAMES)[number];
export const RULE_SET_SIZES = [10, 100, 1000, 10_000] as const;

export function objectPath(name: ObjectName, review = false): string {
  return join(FIXTURES, 'objects', `${name}${review ? '.review' : ''}.json`);
}

/**
 * The AdmissionReview body of a fixture as an API server sends it: compact JSON (Go's
 * encoding/json writes no whitespace), written once to a file under the temporary directory for
 * the load generator. The committed fixtures are indented for reading; sent as they are, the
 * indentation alone makes a body 1.3–1.6 times larger and every byte-wise pass over it slower.
 */
export function wireBodyPath(name: ObjectName): string {
  const dir = join(tmpdir(), 'kubemod-ts-bench');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.review.json`);
  writeFileSync(path, JSON.stringify(JSON.parse(readFileSync(objectPath(name, true), 'utf8'))));
  return path;
}

export function loadObject(name: ObjectName): JsonObject {
  return JSON.parse(readFileSync(objectPath(name), 'utf8')) as JsonObject;
}

export function ruleSetDir(size: number): string {
  return join(FIXTURES, 'rules', String(size));
}

/** The YAML texts of a rule set, by file path, in path order. */
export function ruleSetTexts(size: number): { source: string; text: string }[] {
  const dir = ruleSetDir(size);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => ({ source: join(dir, file), text: readFileSync(join(dir, file), 'utf8') }));
}

/** Parses, validates and compiles a rule set into a fresh store, as `serve` does. */
export function loadRuleSet(size: number): { store: RuleStore; errors: string[] } {
  const store = new RuleStore({ clusterNamespace: CLUSTER_NAMESPACE });
  const errors: string[] = [];
  const compilers = cachingCompilers();
  for (const { source, text } of ruleSetTexts(size)) {
    const loaded = loadModRules(text, source, {
      defaultNamespace: 'default',
      clusterNamespace: CLUSTER_NAMESPACE,
      compilers,
    });
    errors.push(...loaded.errors);
    for (const rule of loaded.rules) store.put(rule);
  }
  return { store, errors };
}
