/**
 * package.json "dependencies" is exactly what shipped code imports at run time: the production
 * image installs those alone (`npm ci --omit=dev`), so a package there that src/ does not import
 * is weight in every image, and one that src/ imports but is missing breaks it. (The reverse
 * direction, a devDependency imported by src/, is also a rule of .dependency-cruiser.cjs.)
 * "optionalDependencies" are exactly the packages shipped code loads with `require` when they are
 * installed (the native re2 addon: src/engine/re2-native.ts), never with an import, so that a
 * failed install of one cannot stop the CLI from loading.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Package names of the runtime imports of a TypeScript source (`import type` is erased). */
function importedPackages(source: string): string[] {
  const specifiers: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s+(type\s)?[^;'"]*?\sfrom\s+'([^']+)'/gm,
    /^\s*import\s+()'([^']+)'/gm,
    /\bimport\(\s*()'([^']+)'\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) {
      if (match[1] === undefined || match[1] === '') specifiers.push(match[2] ?? '');
    }
  }
  return specifiers
    .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s))
    .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] ?? s)));
}

/** Package names a source loads with `createRequire(…)('<name>')` or `require('<name>')`. */
function requiredPackages(source: string): string[] {
  return [...source.matchAll(/(?:\)|\brequire)\(\s*'([^'./][^']*)'\s*\)/g)].map((m) => m[1] ?? '');
}

function shippedSources(): string[] {
  return (
    readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => !/\.test(-support)?\.ts$/.test(file))
      // The playground page is bundled at build time (its packages are devDependencies).
      .filter((file) => !file.startsWith('playground/'))
      .map((file) => join(ROOT, 'src', file))
  );
}

describe('production dependencies', () => {
  it('reads runtime package imports only', () => {
    const source = [
      "import express, { type Request } from 'express';",
      "import type { Logger } from 'pino';",
      "import { a } from './local.js';",
      "import { readFile } from 'node:fs/promises';",
      "import 'side-effect';",
      "const yaml = await import('js-yaml');",
      "export { x } from '@scope/pkg/sub';",
    ].join('\n');
    expect(importedPackages(source).sort()).toEqual([
      '@scope/pkg',
      'express',
      'js-yaml',
      'side-effect',
    ]);
  });

  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    optionalDependencies: Record<string, string>;
  };

  it('are exactly the packages src/ imports at run time', () => {
    const imported = new Set(
      shippedSources().flatMap((file) => importedPackages(readFileSync(file, 'utf8'))),
    );
    expect([...imported].sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });

  it('reads required package names', () => {
    expect(requiredPackages("createRequire(import.meta.url)('re2') as X; require('a/b')")).toEqual([
      're2',
      'a/b',
    ]);
    expect(requiredPackages("require('./local.js'); import('x')")).toEqual([]);
  });

  it('optional ones are exactly the packages src/ requires when installed, and never imports', () => {
    const required = new Set(
      shippedSources().flatMap((file) => requiredPackages(readFileSync(file, 'utf8'))),
    );
    expect([...required].sort()).toEqual(Object.keys(pkg.optionalDependencies).sort());
    for (const name of required) expect(Object.keys(pkg.dependencies)).not.toContain(name);
  });
});
