import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubemodError } from '../../errors/catalog.js';

/** One file of the playground page, read into memory. */
export interface PlaygroundAsset {
  readonly contentType: string;
  readonly body: Buffer;
}

/** The playground's files by request path (`/` is index.html); nothing else is served. */
export type PlaygroundAssets = ReadonlyMap<string, PlaygroundAsset>;

/**
 * Where the built page is (`npm run playground:build` writes `dist/playground`, and `npm run build`
 * runs it): `dist/playground` seen from this module in `src/webhook` (tsx) and from
 * `dist/src/webhook` (the package and the container image, which copies `dist/playground` too).
 */
export const PLAYGROUND_DIR_CANDIDATES: readonly string[] = [
  fileURLToPath(new URL('../../../dist/playground/', import.meta.url)),
  fileURLToPath(new URL('../../../playground/', import.meta.url)),
];

/** The first candidate that holds a built page, else the first (whose error then names it). */
export function defaultPlaygroundDir(
  candidates: readonly string[] = PLAYGROUND_DIR_CANDIDATES,
): string {
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? candidates[0] ?? '.';
}

/** The file types the page is made of; other files in the directory are not served. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Largest total size of the page's files: the bundle (editor, in-browser engine with its RE2
 * port, the recipes) is about a megabyte; four leave room without letting a stray file in.
 */
const MAX_TOTAL_BYTES = 4 * 1024 * 1024;

/**
 * Reads the page's files (top level of `dir`, by extension) once, at startup: requests are then
 * answered from memory, and a request path can only ever name one of these files. Throws
 * INPUT_UNREADABLE naming the directory when it or its index.html cannot be read (a build that
 * did not copy the files), so `serve` stops with a clear message instead of serving 404s.
 */
export async function loadPlaygroundAssets(
  dir: string = defaultPlaygroundDir(),
): Promise<PlaygroundAssets> {
  const assets = new Map<string, PlaygroundAsset>();
  let total = 0;
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const contentType = CONTENT_TYPES[extname(entry.name)];
      if (!entry.isFile() || contentType === undefined) continue;
      const body = await readFile(join(dir, entry.name));
      total += body.length;
      if (total > MAX_TOTAL_BYTES) throw new Error(`more than ${String(MAX_TOTAL_BYTES)} bytes`);
      assets.set(`/${entry.name}`, { contentType, body });
    }
  } catch (err) {
    throw new KubemodError(
      'INPUT_UNREADABLE',
      `the playground page's files in ${dir} cannot be read (${err instanceof Error ? err.message : String(err)}); build it with 'npm run playground:build', or run with --no-ui to serve without it`,
      undefined,
      { cause: err },
    );
  }
  const index = assets.get('/index.html');
  if (index === undefined) {
    throw new KubemodError(
      'INPUT_UNREADABLE',
      `the playground page's index.html is missing from ${dir}; build it with 'npm run playground:build', or run with --no-ui to serve without it`,
    );
  }
  assets.set('/', index);
  return assets;
}
