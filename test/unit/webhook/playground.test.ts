import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../../src/cli/serve-config.js';
import { PAGE_SOURCE_DIR } from '../../../scripts/playground/build-page.js';
import {
  defaultPlaygroundDir,
  loadPlaygroundAssets,
} from '../../../src/webhook/playground/playground-assets.js';
import {
  CSP_NONCE_PLACEHOLDER,
  PLAYGROUND_CSP,
  playgroundHtmlCsp,
} from '../../../src/webhook/playground/playground-route.js';
import { send, startHarness, testTls, type Harness, type HttpAnswer } from './harness.js';
import { runServeInProcess } from './serve-in-process.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The page's own scripts (src/playground/*.js), by file name. */
async function pageSources(): Promise<Map<string, string>> {
  const files = (await readdir(PAGE_SOURCE_DIR)).filter((f) => f.endsWith('.js'));
  return new Map(
    await Promise.all(
      files.map(async (f): Promise<[string, string]> => [
        f,
        await readFile(join(PAGE_SOURCE_DIR, f), 'utf8'),
      ]),
    ),
  );
}

function get(path: string, method = 'GET'): Promise<HttpAnswer> {
  if (harness === undefined) throw new Error('no harness');
  return send(harness.server.port, testTls().ca, method, path, undefined, {});
}

describe('playground files', () => {
  it('loads every file of the built page (dist/playground), with / as index.html', async () => {
    const assets = await loadPlaygroundAssets();
    const files = (await readdir(defaultPlaygroundDir())).filter((f) =>
      /\.(html|css|js|svg)$/.test(f),
    );
    expect([...assets.keys()].sort()).toEqual(['/', ...files.map((f) => `/${f}`)].sort());
    expect(assets.get('/')).toBe(assets.get('/index.html'));
    expect(assets.get('/playground.js')?.contentType).toBe('text/javascript; charset=utf-8');
    expect(assets.get('/playground.css')?.contentType).toBe('text/css; charset=utf-8');
    expect(assets.get('/icon.svg')?.contentType).toBe('image/svg+xml');
  });

  it('references only files it serves (HTML attributes and module imports)', async () => {
    const assets = await loadPlaygroundAssets();
    const html = assets.get('/index.html')?.body.toString('utf8') ?? '';
    const references = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)]
      .map((m) => m[1] ?? '')
      .filter((ref) => !ref.startsWith('#'));
    expect(references.sort()).toEqual(['icon.svg', 'icon.svg', 'playground.css', 'playground.js']);
    // The page's sources import only each other (bare specifiers are bundled libraries).
    const sources = await pageSources();
    for (const [file, source] of sources) {
      for (const match of source.matchAll(/^import .* from '\.\/([^']+)';$/gm)) {
        const imported = match[1] ?? '';
        // The in-browser engine (src/playground/engine/*.ts) is bundled into playground.js too.
        const known = imported.startsWith('engine/')
          ? existsSync(join(PAGE_SOURCE_DIR, imported.replace(/\.js$/, '.ts')))
          : sources.has(imported);
        expect(known, `${file} imports ${imported}`).toBe(true);
      }
    }
  });

  it('has no inline script or style and never writes HTML from strings', async () => {
    const assets = await loadPlaygroundAssets();
    const html = assets.get('/index.html')?.body.toString('utf8') ?? '';
    // Every <script> has a src; no style attribute or element, no inline event handler.
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script defer src="playground.js">']);
    expect(html).not.toMatch(/\sstyle=|<style\b|\son[a-z]+=/i);
    for (const [path, source] of await pageSources()) {
      expect(source, path).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setAttribute\(\s*'on/,
      );
    }
  });

  it('refuses to start without index.html or a readable directory, pointing at --no-ui', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubemod-playground-'));
    try {
      await writeFile(join(dir, 'playground.js'), '');
      await expect(loadPlaygroundAssets(dir)).rejects.toThrow(
        `the playground page's index.html is missing from ${dir}; build it with 'npm run playground:build', or run with --no-ui to serve without it`,
      );
      await expect(loadPlaygroundAssets(join(dir, 'absent'))).rejects.toMatchObject({
        code: 'KM6001',
        message: expect.stringMatching(/absent cannot be read \(ENOENT.*--no-ui/) as unknown,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('playground route', () => {
  it('serves the page with a strict Content-Security-Policy and nosniff', async () => {
    harness = await startHarness({ playground: await loadPlaygroundAssets() });
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    // The HTML's policy admits the code editor's style elements by a fresh nonce, which the
    // HTML carries in place of the placeholder; nothing else differs from PLAYGROUND_CSP.
    const nonce = /'nonce-([A-Za-z0-9+/=]{24})'/.exec(
      String(page.headers['content-security-policy']),
    )?.[1];
    expect(nonce).toBeDefined();
    expect(page.headers['content-security-policy']).toBe(playgroundHtmlCsp(nonce ?? ''));
    expect(playgroundHtmlCsp('n')).toBe(
      PLAYGROUND_CSP.replace("style-src 'self'", "style-src 'self' 'nonce-n'"),
    );
    expect(PLAYGROUND_CSP).toContain("default-src 'self'");
    expect(PLAYGROUND_CSP).toContain("script-src 'self'");
    expect(PLAYGROUND_CSP).not.toContain('unsafe');
    expect(page.headers['content-security-policy']).not.toContain('unsafe');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-cache');
    const built = await readFile(join(defaultPlaygroundDir(), 'index.html'), 'utf8');
    expect(built).toContain(`nonce="${CSP_NONCE_PLACEHOLDER}"`);
    expect(page.text).toBe(built.replaceAll(CSP_NONCE_PLACEHOLDER, nonce ?? ''));
    const again = await get('/?state=ignored');
    expect(again.headers['content-security-policy']).not.toBe(
      page.headers['content-security-policy'],
    );
    expect(again.text.replace(/nonce="[^"]*"/, '')).toBe(page.text.replace(/nonce="[^"]*"/, ''));

    const script = await get('/playground.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['content-security-policy']).toBe(PLAYGROUND_CSP);
    expect(script.headers['x-content-type-options']).toBe('nosniff');

    const head = await get('/playground.css', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(head.text).toBe('');
  });

  it('answers 404 (JSON) for any other path or method, and never reads other files', async () => {
    harness = await startHarness({ playground: await loadPlaygroundAssets() });
    for (const path of [
      '/nope.js',
      '/index.htm',
      '/playground.js/',
      '/src/playground/index.html',
      '/../package.json',
      '/%2e%2e/package.json',
      '/..%2fpackage.json',
      '/%2fetc%2fpasswd',
      '/tsconfig.json',
      '//index.html',
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.json(), path).toMatchObject({ code: 'KM6003' });
    }
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const answer = await get('/', method);
      expect(answer.status, method).toBe(404);
    }
    // The webhook routes are unchanged.
    expect((await get('/healthz')).text).toBe('ok');
  });

  it('is not served without the files (the operator never passes them)', async () => {
    harness = await startHarness();
    for (const path of ['/', '/index.html', '/playground.js']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.headers['content-security-policy'], path).toBeUndefined();
    }
  });
});

describe('kubemod-ts serve and --no-ui', () => {
  it('parses --no-ui (the page is on by default)', () => {
    const on = parseServeArgs(['--rules', 'r'], {});
    const off = parseServeArgs(['--rules', 'r', '--no-ui'], {});
    expect(on.kind === 'config' && on.config.ui).toBe(true);
    expect(off.kind === 'config' && off.config.ui).toBe(false);
    expect(() => parseServeArgs(['--rules', 'r', '--no-ui=yes'], {})).toThrow(/no-ui/);
  });

  it('serves the page at / unless --no-ui', async () => {
    for (const [flags, status] of [
      [[], 200],
      [['--no-ui'], 404],
    ] as const) {
      const serve = await runServeInProcess('samples/modrules', flags);
      const started = serve.server;
      try {
        const answer = await getInsecure(started.port, '/');
        expect(answer.status, flags.join(' ')).toBe(status);
        if (status === 200) {
          expect(answer.headers['content-security-policy']).toMatch(
            /^default-src 'self'; script-src 'self'; style-src 'self' 'nonce-/,
          );
          expect(answer.text).toContain('<title>kubemod-ts playground</title>');
          expect(serve.output()).toContain('"msg":"playground page served"');
        } else {
          expect(serve.output()).not.toContain('playground page served');
        }
      } finally {
        serve.stop();
      }
    }
  }, 60_000);
});

/** GET over HTTPS without verifying serve's self-signed certificate. */
function getInsecure(
  port: number,
  path: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'GET', rejectUnauthorized: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
