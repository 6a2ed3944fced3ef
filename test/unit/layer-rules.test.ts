/**
 * The import rules of .dependency-cruiser.cjs (what `npm run lint:layers` checks over the repo),
 * run on small fixture trees: a clean tree passes, and each kind of violation is reported by the
 * rule that forbids it (a cycle, through values or types; an import against the layers; an I/O
 * package in the engine; a devDependency in shipped code; a folder pair that depends both ways,
 * or a folder missing from the order).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkLayers,
  describeViolation,
  loadLayerConfig,
  type LayerViolation,
} from '../../scripts/layers/check-layers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const config = loadLayerConfig(ROOT);
const trees: string[] = [];

/** A clean little project: errors ← api ← engine ← webhook ← cli, one production dependency. */
const CLEAN: Record<string, string> = {
  'package.json': JSON.stringify({
    name: 'fixture',
    type: 'module',
    dependencies: { express: '1.0.0' },
    devDependencies: { vitest: '1.0.0' },
  }),
  'node_modules/express/package.json': JSON.stringify({ name: 'express', main: 'index.js' }),
  'node_modules/express/index.js': 'module.exports = {};\n',
  'node_modules/vitest/package.json': JSON.stringify({ name: 'vitest', main: 'index.js' }),
  'node_modules/vitest/index.js': 'module.exports = {};\n',
  'src/errors/catalog.ts': 'export class KubemodError extends Error {}\n',
  'src/api/types.ts':
    "import { KubemodError } from '../errors/catalog.js';\nexport interface Spec { readonly select: string }\nexport const E = KubemodError;\n",
  'src/engine/rule.ts':
    "import type { Spec } from '../api/types.js';\nexport const compile = (spec: Spec): string => spec.select;\n",
  'src/webhook/server.ts':
    "import express from 'express';\nimport { compile } from '../engine/rule.js';\nexport const serve = (): unknown => [express, compile];\n",
  'src/cli/main.ts': "import { serve } from '../webhook/server.js';\nserve();\n",
  'src/engine/rule.test.ts':
    "import 'vitest';\nimport { serve } from '../webhook/server.js';\nimport { compile } from './rule.js';\nexport const t = [serve, compile];\n",
};

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'layer-rules-'));
  trees.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function violations(extra: Record<string, string>): Promise<LayerViolation[]> {
  return checkLayers(['src'], config, tree({ ...CLEAN, ...extra }));
}

function rules(found: readonly LayerViolation[]): string[] {
  return [...new Set(found.map((v) => v.rule))].sort();
}

afterEach(() => {
  for (const dir of trees.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('layer rules (.dependency-cruiser.cjs)', () => {
  it('pass a tree that keeps the layers (tests may import across them)', async () => {
    expect(await violations({})).toEqual([]);
  });

  it('fail on a cycle, and name the files around it', async () => {
    const found = await violations({
      'src/engine/a.ts': "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n",
      'src/engine/b.ts': "import { a } from './a.js';\nexport const b = (): number => a();\n",
    });
    expect(rules(found)).toEqual(['no-circular']);
    expect(found.map(describeViolation)).toContain(
      'no-circular: src/engine/a.ts → src/engine/b.ts (cycle: src/engine/a.ts → src/engine/b.ts → src/engine/a.ts)',
    );
  });

  it('fail on a cycle made of type-only imports (the api ↔ engine knot)', async () => {
    const found = await violations({
      'src/api/types.ts':
        "import type { Item } from '../engine/item.js';\nexport interface Spec { readonly items: readonly Item[] }\n",
      'src/engine/item.ts':
        "import type { Spec } from '../api/types.js';\nexport interface Item { readonly spec: Spec }\n",
    });
    expect(rules(found)).toEqual(['api-imports-only-errors', 'no-circular']);
  });

  it('fail on imports against the layers', async () => {
    const found = await violations({
      'src/engine/evaluate.ts':
        "import { serve } from '../webhook/server.js';\nexport const e = serve;\n",
      'src/webhook/flags.ts': "import '../cli/main.js';\nexport const f = 1;\n",
      'src/errors/more.ts': "import type { Spec } from '../api/types.js';\nexport type S = Spec;\n",
    });
    expect(found.map(describeViolation).sort()).toEqual([
      'engine-imports-only-api-and-errors: src/engine/evaluate.ts → src/webhook/server.ts',
      'errors-is-a-leaf: src/errors/more.ts → src/api/types.ts',
      'only-the-cli-imports-the-cli: src/webhook/flags.ts → src/cli/main.ts',
      'webhook-knows-no-controller-or-cli: src/webhook/flags.ts → src/cli/main.ts',
    ]);
  });

  it('fail on I/O in the engine and on a devDependency in shipped code', async () => {
    const found = await violations({
      'src/engine/io.ts':
        "import express from 'express';\nimport { readFileSync } from 'node:fs';\nexport const io = [express, readFileSync];\n",
      'src/webhook/dev.ts': "import 'vitest';\nexport const d = 1;\n",
    });
    expect(found.map(describeViolation).sort()).toEqual([
      'engine-does-no-io: src/engine/io.ts → fs',
      'engine-does-no-io: src/engine/io.ts → node_modules/express/index.js',
      'src-uses-production-dependencies: src/webhook/dev.ts → node_modules/vitest/index.js',
    ]);
  });

  it('pass imports down the folder order (LAYER_ORDER)', async () => {
    expect(
      await violations({
        'src/kube/client.ts': 'export const get = (): number => 1;\n',
        'src/authz/review.ts':
          "import { get } from '../kube/client.js';\nexport const review = (): number => get();\n",
        'src/audit/run/verdict.ts':
          "import { get } from '../../kube/client.js';\nexport const verdict = (): number => get();\n",
        'src/reports/collector.ts':
          "import { verdict } from '../audit/run/verdict.js';\nexport const collect = (): number => verdict();\n",
        'src/controller/operator.ts':
          "import { collect } from '../reports/collector.js';\nimport { review } from '../authz/review.js';\nexport const run = (): number => collect() + review();\n",
      }),
    ).toEqual([]);
  });

  it.each([
    ['reports', 'audit/run'],
    ['controller', 'tls'],
    ['controller', 'audit/cluster'],
    ['audit/cluster', 'webhook'],
    ['webhook', 'authz'],
    ['authz', 'kube'],
  ])(
    'fail on a folder pair that depends both ways, without a file cycle (%s ↔ %s)',
    async (upper, lower) => {
      const up = `src/${upper}/up.ts`;
      const down = `src/${lower}/down.ts`;
      const rel = (from: string, to: string): string => {
        const depth = from.split('/').length - 2;
        return `${'../'.repeat(depth)}${to.slice('src/'.length).replace(/\.ts$/, '.js')}`;
      };
      const found = await violations({
        [up]: `import { d } from '${rel(up, down)}';\nexport const u = (): number => d + 1;\n`,
        [down]: 'export const d = 1;\n',
        [`src/${lower}/other.ts`]: `import { u } from '${rel(`src/${lower}/other.ts`, up)}';\nexport const o = u;\n`,
      });
      expect(found.map(describeViolation)).toEqual([
        `layer-order: src/${lower}/other.ts → src/${upper}/up.ts`,
      ]);
    },
  );

  it('fail on a folder that has no place in the order', async () => {
    const found = await violations({
      'src/lookups/cache.ts':
        "import { compile } from '../engine/rule.js';\nexport const c = compile;\n",
      'src/audit/loose.ts':
        "import { compile } from '../engine/rule.js';\nexport const l = compile;\n",
    });
    expect(found.map(describeViolation).sort()).toEqual([
      'layer-order-names-every-folder: src/audit/loose.ts → src/engine/rule.ts',
      'layer-order-names-every-folder: src/lookups/cache.ts → src/engine/rule.ts',
    ]);
  });
});
