import { build, type Plugin } from 'esbuild';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recipesPlugin } from './recipes-plugin.js';

/**
 * Builds the playground page into a static directory: the page's scripts and the libraries they
 * import (CodeMirror, the in-browser engine) bundled by esbuild into one classic script, plus the
 * HTML, stylesheet and icon. A classic script (an IIFE, not an ES module) because browsers refuse
 * module scripts from `file://`: the built directory works from any static host and from disk.
 * The output depends on the sources alone (no timestamps, no absolute paths), so two builds of one
 * commit are byte-identical.
 */

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const PAGE_SOURCE_DIR = join(REPO_ROOT, 'src/playground');
export const DEFAULT_PAGE_OUT_DIR = join(REPO_ROOT, 'dist/playground');
/** The examples the page offers (`virtual:recipes`). */
export const RECIPES_DIR = join(REPO_ROOT, 'samples/recipes');

/** The in-browser engine's stand-ins for what the engine takes from Node (src/playground/engine). */
const ENGINE_DIR = join(PAGE_SOURCE_DIR, 'engine');

/**
 * Modules the engine imports that exist only in Node, and their browser stand-ins:
 * `node:crypto` a synchronous SHA-1/SHA-256 (the template hash functions), and `source-map`
 * (handlebars' optional source maps) nothing.
 */
export const ENGINE_ALIASES: Readonly<Record<string, string>> = {
  'node:crypto': join(ENGINE_DIR, 'crypto-shim.ts'),
  'source-map': join(ENGINE_DIR, 'no-source-map.ts'),
};

/**
 * The engine's loader of the native `re2` addon (src/engine/re2-native.ts) has a stand-in with no
 * addon, so the page runs its regexes on re2js (the pure-JS RE2 port, same syntax and results,
 * linear time), as Node does when the addon is not installed (src/engine/re2-engine.ts).
 */
export function noNativeRe2(): Plugin {
  return {
    name: 'no-native-re2',
    setup(b) {
      b.onResolve({ filter: /^\.\/re2-native\.js$/ }, (args) =>
        args.importer.endsWith(join('src', 'engine', 're2-engine.ts'))
          ? { path: join(ENGINE_DIR, 're2-native-browser.ts') }
          : undefined,
      );
    },
  };
}

/** Node's global `Buffer`, which the engine uses for UTF-8, base64 and hex conversions. */
export const ENGINE_INJECT: readonly string[] = [join(ENGINE_DIR, 'buffer-shim.ts')];

/** Files copied as they are, next to the bundle. */
const STATIC_FILES = ['playground.css', 'icon.svg'] as const;

/** The page's HTML loads the bundle as a classic, deferred script (works from file://). */
export function rewriteScriptTag(html: string): string {
  const moduleTag = '<script type="module" src="playground.js"></script>';
  if (!html.includes(moduleTag)) {
    throw new Error(`src/playground/index.html: expected the tag ${moduleTag}`);
  }
  return html.replace(moduleTag, '<script defer src="playground.js"></script>');
}

/** Writes the built page to `outDir` (replacing what was there) and returns the files written. */
export async function buildPlaygroundPage(
  outDir: string = DEFAULT_PAGE_OUT_DIR,
): Promise<readonly string[]> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [join(PAGE_SOURCE_DIR, 'playground.js')],
    outfile: join(outDir, 'playground.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    legalComments: 'eof',
    charset: 'utf8',
    logLevel: 'warning',
    absWorkingDir: REPO_ROOT,
    alias: ENGINE_ALIASES,
    inject: [...ENGINE_INJECT],
    plugins: [noNativeRe2(), recipesPlugin(RECIPES_DIR)],
  });
  const html = await readFile(join(PAGE_SOURCE_DIR, 'index.html'), 'utf8');
  await writeFile(join(outDir, 'index.html'), rewriteScriptTag(html));
  for (const file of STATIC_FILES) await copyFile(join(PAGE_SOURCE_DIR, file), join(outDir, file));
  return ['index.html', 'playground.js', ...STATIC_FILES];
}
