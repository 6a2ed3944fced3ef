import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPlaygroundPage, rewriteScriptTag } from '../../scripts/playground/build-page.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function buildInto(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kubemod-page-'));
  dirs.push(dir);
  await buildPlaygroundPage(dir);
  return dir;
}

/** Two builds of the page with the engine bundled take a few seconds each on a loaded machine. */
const BUILD_TIMEOUT_MS = 60_000;

describe('npm run playground:build', () => {
  it(
    'writes a static page whose script is classic (loads from file://) and self-contained',
    async () => {
      const dir = await buildInto();
      expect((await readdir(dir)).sort()).toEqual([
        'icon.svg',
        'index.html',
        'playground.css',
        'playground.js',
      ]);
      const html = await readFile(join(dir, 'index.html'), 'utf8');
      expect(html).toContain('<script defer src="playground.js"></script>');
      expect(html).not.toContain('type="module"');
      const script = await readFile(join(dir, 'playground.js'), 'utf8');
      // Bundled: no import statement is left for the browser to resolve.
      expect(script).not.toMatch(/^\s*import\s|\bimport\s*\(/m);
    },
    BUILD_TIMEOUT_MS,
  );

  it(
    'gives byte-identical output for the same sources',
    async () => {
      const [a, b] = [await buildInto(), await buildInto()];
      for (const file of await readdir(a)) {
        expect(await readFile(join(b, file)), file).toEqual(await readFile(join(a, file)));
      }
    },
    BUILD_TIMEOUT_MS,
  );

  it('refuses an index.html without the module script tag it rewrites', () => {
    expect(() => rewriteScriptTag('<html></html>')).toThrow(/expected the tag/);
  });
});
