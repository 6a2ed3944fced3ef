/**
 * What the dry-run worker thread loads, checked on the sources' runtime imports (`import type` is
 * erased and not followed): only what a dry run needs (every module it loads is start-up CPU taken
 * from the event loop that answers admission requests, on a one-CPU pod). The layers themselves
 * (no cycle, the engine free of HTTP/Kubernetes/metrics, api below engine, …) are rules of
 * .dependency-cruiser.cjs, checked by `npm run lint:layers` (test/unit/layer-rules.test.ts).
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Runtime import specifiers of a TypeScript source (static imports and re-exports). */
export function runtimeImports(source: string): string[] {
  const specifiers: string[] = [];
  const fromClause = /^\s*(import|export)\s+(type\s)?[^;'"]*?\sfrom\s+'([^']+)'/gm;
  for (const match of source.matchAll(fromClause)) {
    if (match[2] === undefined && match[3] !== undefined) specifiers.push(match[3]);
  }
  for (const match of source.matchAll(/^\s*import\s+'([^']+)'/gm)) {
    if (match[1] !== undefined) specifiers.push(match[1]);
  }
  return specifiers;
}

interface Graph {
  /** Project files reached, relative to the repository root. */
  readonly files: string[];
  /** Packages (and node: modules) imported, with the first project file that imports each. */
  readonly packages: Map<string, string>;
}

/** Follows runtime imports from `entry` through the project's own files (breadth first). */
function importGraph(entry: string): Graph {
  const files: string[] = [];
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [resolve(ROOT, entry)];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const from = relative(ROOT, file);
    files.push(from);
    for (const specifier of runtimeImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) {
        queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      } else {
        const name = specifier.startsWith('@')
          ? specifier.split('/').slice(0, 2).join('/')
          : (specifier.split('/')[0] ?? specifier);
        if (!packages.has(name)) packages.set(name, from);
      }
    }
  }
  return { files, packages };
}

const HTTP_AND_KUBERNETES = [
  'express',
  'body-parser',
  '@kubernetes/client-node',
  'node:http',
  'node:https',
  'node:http2',
  'node:net',
  'node:tls',
  'prom-client',
  'pino',
];

describe('dry-run worker imports', () => {
  it('reads runtime imports and skips type-only ones', () => {
    const source = [
      "import express, { type RequestHandler } from 'express';",
      "import type { Logger } from 'pino';",
      "import {\n  a,\n  b,\n} from './multi-line.js';",
      "export { c } from './re-export.js';",
      "export type { D } from './type-only.js';",
      "import './side-effect.js';",
    ].join('\n');
    expect(runtimeImports(source)).toEqual([
      'express',
      './multi-line.js',
      './re-export.js',
      './side-effect.js',
    ]);
  });

  it('keeps the dry-run worker thread to the packages a dry run needs', () => {
    const graph = importGraph('src/webhook/dryrun/dryrun-worker.ts');
    expect(graph.files.length).toBeGreaterThan(20);
    const packages = [...graph.packages.keys()].filter((name) => !name.startsWith('node:'));
    // The native re2 addon is required at run time when it is installed (src/engine/re2-native.ts),
    // not imported: re2js is the import, the fallback.
    expect(packages.sort()).toEqual(['diff', 'handlebars', 'js-yaml', 're2js']);
    expect([...graph.packages.keys()].filter((name) => HTTP_AND_KUBERNETES.includes(name))).toEqual(
      [],
    );
  });
});
