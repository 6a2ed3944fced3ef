import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { lowContrast } from './support/contrast.js';
import {
  editorText,
  openPlayground,
  screenshot,
  setEditor,
  settled,
  textOf,
  waitForText,
} from './support/playground-page.js';
import { startStaticServer, type StaticServer } from './support/static-server.js';

// Issue 39: the share-link limit said and never leaving an older state in the address, manifests
// loaded from a file or a URL (another origin on 127.0.0.1, with and without CORS), a dark-mode
// toggle (the system's choice by default, the user's remembered), AA contrast of stale results in
// both themes, and the categorised examples catalogue. Screenshots go to test-results/.

const PAGE_DIR = fileURLToPath(new URL('../../dist/playground/', import.meta.url));
const RECIPES = fileURLToPath(new URL('../../samples/recipes/', import.meta.url));

const MANIFEST = `apiVersion: v1
kind: ConfigMap
metadata:
  name: from-the-network
  namespace: shop
data:
  a: b
`;

let pages: StaticServer;
let manifests: StaticServer;
let browser: Browser;
let page: Page;
let scratch: string;
const problems: string[] = [];

beforeAll(async () => {
  pages = await startStaticServer(PAGE_DIR);
  manifests = await startStaticServer(undefined, {
    '/cors.yaml': { body: MANIFEST, cors: true },
    '/no-cors.yaml': { body: MANIFEST, cors: false },
  });
  scratch = mkdtempSync(join(tmpdir(), 'kubemod-playground-load-'));
  browser = await launchChromium();
  page = await openPlayground(browser, `${pages.url}/`, problems);
  await settled(page);
});

afterAll(async () => {
  await browser.close();
  await Promise.all([pages.close(), manifests.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

/** Replaces an editor's text by pasting, without comparing (long lines are drawn in part). */
async function paste(id: string, text: string): Promise<void> {
  await page.focus(`#${id}`);
  await page.keyboard.down('Control');
  await page.keyboard.press('a');
  await page.keyboard.up('Control');
  await page.keyboard.sendCharacter(text);
}

describe('playground: share limit, loading, theme and catalogue (issue 39)', () => {
  it('above the share limit says why and leaves no older state in the address', async () => {
    await setEditor(page, 'resource', 'kind: ConfigMap\nmetadata:\n  name: older-state\n');
    await settled(page);
    expect(new URL(page.url()).hash).toMatch(/^#v1\./);
    // Random text does not compress: the link would be longer than 64 KiB.
    const noise = randomBytes(60_000).toString('base64');
    await paste('resource', `kind: ConfigMap\nmetadata:\n  name: large\ndata:\n  x: ${noise}\n`);
    await settled(page);
    await page.waitForSelector('#link-note:not([hidden])', { timeout: 5_000 });
    expect(await textOf(page, '#link-note')).toMatch(
      /^No share link: .* links hold at most 64 KiB/,
    );
    expect(await page.$eval('#copy-link', (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    expect(new URL(page.url()).hash).toBe('');
    await screenshot(page, 'issue39-share-limit');
    // A fresh profile opening the address gets the built-in example, not the older state.
    const fresh = await browser.createBrowserContext();
    const other = await openPlayground(fresh.browser(), page.url(), problems);
    expect(await editorText(other, 'resource')).not.toContain('older-state');
    await other.close();
    await fresh.close();
    await setEditor(page, 'resource', MANIFEST);
    await settled(page);
    expect(await page.$eval('#link-note', (e) => (e as HTMLElement).hidden)).toBe(true);
    expect(new URL(page.url()).hash).toMatch(/^#v1\./);
  });

  it('loads a manifest from a file, with Undo', async () => {
    await page.click('#load-panel > summary');
    const file = join(scratch, 'pod.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: from-a-file\n');
    const input = (await page.$('#load-file')) as ElementHandle<HTMLInputElement>;
    await input.uploadFile(file);
    await page.waitForFunction(
      () => document.querySelector('#resource')?.textContent.includes('from-a-file') === true,
      { timeout: 5_000 },
    );
    expect(await textOf(page, '#notice')).toContain('Loaded pod.yaml');
    await settled(page);
  });

  it('loads a manifest from a URL, and says why when it cannot', async () => {
    await page.select('#load-target', 'cluster');
    await page.$eval('#load-url', (e) => ((e as HTMLInputElement).value = ''));
    await page.type('#load-url', `${manifests.url}/cors.yaml`);
    await page.click('#load-url-button');
    await page.waitForFunction(
      () => document.querySelector('#cluster')?.textContent.includes('from-the-network') === true,
      { timeout: 5_000 },
    );
    expect(await textOf(page, '#context-count')).toBe('(1)');
    for (const [path, expected] of [
      ['/no-cors.yaml', 'Access-Control-Allow-Origin'],
      ['/missing.yaml', 'answered HTTP 404'],
    ] as const) {
      await page.$eval('#load-url', (e) => ((e as HTMLInputElement).value = ''));
      await page.type('#load-url', `${manifests.url}${path}`);
      await page.click('#load-url-button');
      await waitForText(page, '#load-error', expected);
      expect(await textOf(page, '#load-error')).toMatch(/^Not loaded: /);
    }
    await screenshot(page, 'issue39-load-error');
    // The browser logs the refused and the missing answers; those were the point.
    const expectedLogs = /CORS policy|Failed to load resource|net::ERR_FAILED/;
    expect(problems.filter((p) => !expectedLogs.test(p))).toEqual([]);
    problems.length = 0;
    await setEditor(page, 'cluster', '');
  });

  it('follows the system theme, and remembers the user’s choice', async () => {
    const dark = await browser.newPage();
    await dark.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await dark.goto(`${pages.url}/`, { waitUntil: 'load' });
    await dark.waitForSelector('#rules.cm-content');
    const theme = (p: Page): Promise<{ theme?: string; pressed: string | null; bg: string }> =>
      p.evaluate(() => ({
        theme: document.documentElement.dataset.theme,
        pressed: document.querySelector('#theme-toggle')?.getAttribute('aria-pressed') ?? null,
        bg: getComputedStyle(document.body).backgroundColor,
      }));
    expect(await theme(dark)).toEqual({ theme: 'dark', pressed: 'true', bg: 'rgb(18, 22, 29)' });
    await dark.click('#theme-toggle');
    expect(await theme(dark)).toEqual({
      theme: 'light',
      pressed: 'false',
      bg: 'rgb(246, 247, 249)',
    });
    await dark.reload({ waitUntil: 'load' });
    await dark.waitForSelector('#rules.cm-content');
    expect((await theme(dark)).theme).toBe('light');
    await dark.click('#theme-toggle');
    await dark.waitForFunction(
      () => document.querySelector('#status')?.textContent === 'Up to date',
    );
    await screenshot(dark, 'issue39-dark');
    await dark.close();
  });

  it('keeps stale results at AA contrast (4.5:1) in both themes', async () => {
    await setEditor(page, 'rules', 'a: b\n  c: d\n');
    await page.waitForSelector('#results.stale', { timeout: 15_000 });
    for (const mode of ['light', 'dark']) {
      await page.evaluate((m) => (document.documentElement.dataset.theme = m), mode);
      expect({ mode, low: await lowContrast(page, '#results, .top-bar, .foot') }).toEqual({
        mode,
        low: [],
      });
      await screenshot(page, `issue39-stale-${mode}`);
    }
    // Said in words, not only shown by a style.
    expect(await textOf(page, '#stale-note')).toContain('earlier version of the inputs');
    await page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
    await screenshot(page, 'issue39-light', true);
  });

  it('lists every recipe in the catalogue, grouped by category', async () => {
    const recipes = readdirSync(RECIPES).filter((name) =>
      existsSync(join(RECIPES, name, 'recipe.yaml')),
    );
    expect(recipes.length).toBeGreaterThanOrEqual(20);
    const groups = await page.$$eval('#library optgroup', (all) =>
      all.map((group) => ({
        label: group.label,
        options: [...group.querySelectorAll('option')].map((o) => o.value),
      })),
    );
    const recipeGroups = groups.filter((g) => g.options.some((o) => o.startsWith('recipe:')));
    expect(recipeGroups.length).toBeGreaterThanOrEqual(6);
    expect(recipeGroups.flatMap((g) => g.options).sort()).toEqual(
      recipes.map((name) => `recipe:${name}`).sort(),
    );
    for (const group of recipeGroups) expect(group.options.length).toBeGreaterThanOrEqual(2);
    expect(problems).toEqual([]);
  });
});
