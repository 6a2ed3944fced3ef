import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import {
  editorText,
  focusedId,
  openPlayground,
  setEditor,
  settled,
  textOf,
  waitForText,
} from './support/playground-page.js';
import { startServe, type ServeProcess } from './support/serve-process.js';

// Issue 28, defects 1 and 2 and the context panel: no navigation loses the editors. The skip
// link and any fragment the playground did not make leave them alone; loading an example asks
// nothing and offers Undo; the draft survives a reload and a look at someone's share link; the
// context (namespace and node manifests, old object) travels with links and drafts.

const RULE = `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: mine
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  patch:
    - op: add
      path: /metadata/labels/mine
      value: 'yes'
`;

const NAMESPACE = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    cost-center: c42
`;

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

let serve: ServeProcess;
let browser: Browser;
const problems: string[] = [];

const open = (fragment = ''): Promise<Page> =>
  openPlayground(browser, `${serve.url}/${fragment}`, problems);

async function shareLink(page: Page): Promise<string> {
  await page.waitForFunction(() => location.hash.startsWith('#v1.'), { timeout: 15_000 });
  return page.evaluate(() => location.hash);
}

beforeAll(async () => {
  serve = await startServe();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser.close();
  expect(await serve.stop()).toBe(0);
});

describe('playground: no navigation loses work (issue 28)', () => {
  it('the skip link moves focus to the results and never touches the editors', async () => {
    const page = await open();
    await setEditor(page, 'rules', RULE);
    await settled(page);
    const link = await shareLink(page);
    // Keyboard: the skip link is the first stop of the page, Enter follows it.
    const first = await page.$$eval(
      'a[href], button, input, select, [contenteditable]',
      (all) => all[0]?.id,
    );
    expect(first).toBe('skip-link');
    await page.focus('#skip-link');
    await page.keyboard.press('Enter');
    expect(await focusedId(page)).toBe('results');
    expect(await editorText(page, 'rules')).toBe(RULE);
    expect(await page.evaluate(() => location.hash)).toBe(link);
    // Any fragment the playground did not make is an in-page link, not a state.
    await page.evaluate(() => {
      location.hash = '#results';
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await editorText(page, 'rules')).toBe(RULE);
    expect(await page.$eval('#notice', (element) => (element as HTMLElement).hidden)).toBe(true);
    await page.close();

    const opened = await open('#results');
    await settled(opened);
    expect(await editorText(opened, 'rules')).toBe(RULE);
    expect(await opened.$eval('#notice', (element) => (element as HTMLElement).hidden)).toBe(true);
    await opened.close();
  });

  it('loads an example without asking, and Undo brings the editors back', async () => {
    const page = await open();
    await setEditor(page, 'rules', RULE);
    await settled(page);
    const options = await page.$$eval('#library option', (items) =>
      items.map((item) => item.getAttribute('value')),
    );
    expect(options[0]).toBe('builtin');
    await page.select('#library', 'builtin');
    await page.click('#load-example');
    await waitForText(page, '#notice', 'Loaded');
    expect(await editorText(page, 'rules')).toContain('name: deployment-owner');
    await waitForText(page, '#summary', 'Patched: 1 operation');
    await page.click('#notice .notice-action');
    await settled(page);
    expect(await editorText(page, 'rules')).toBe(RULE);
    expect(await page.$eval('#notice', (element) => (element as HTMLElement).hidden)).toBe(true);

    // Once the loaded example is edited, Undo (which would throw the edit away) is gone.
    await page.click('#load-example');
    await waitForText(page, '#notice', 'Loaded');
    await setEditor(page, 'resource', 'kind: Pod\n');
    expect(await page.$eval('#notice', (element) => (element as HTMLElement).hidden)).toBe(true);
    await page.close();
  });

  it('keeps the draft across a reload, and a shared link does not overwrite it', async () => {
    const page = await open();
    await setEditor(page, 'rules', RULE);
    await settled(page);
    await page.reload({ waitUntil: 'load' });
    await page.goto(`${serve.url}/`, { waitUntil: 'load' });
    await page.waitForSelector('#rules.cm-content');
    expect(await editorText(page, 'rules')).toBe(RULE);

    // Someone else's link: its editors, the draft kept and offered back.
    const other = RULE.replace('name: mine', 'name: theirs');
    await setEditor(page, 'rules', other);
    await settled(page);
    const theirLink = await shareLink(page);
    await setEditor(page, 'rules', RULE);
    await settled(page);
    await page.close();

    const shared = await open(theirLink);
    await settled(shared);
    expect(await editorText(shared, 'rules')).toBe(other);
    await waitForText(shared, '#notice', 'your own draft is kept');
    await shared.click('#notice .notice-action');
    await settled(shared);
    expect(await editorText(shared, 'rules')).toBe(RULE);
    await shared.close();
  });

  it('keeps the context panel (namespace manifest, old object) in links and drafts', async () => {
    const page = await open();
    await setEditor(page, 'resource', 'kind: ConfigMap\nmetadata:\n  name: settings\n');
    await page.click('#context > summary');
    await setEditor(page, 'namespaceManifest', NAMESPACE);
    await page.select('#operation', 'UPDATE');
    await setEditor(page, 'old', 'kind: ConfigMap\nmetadata:\n  name: settings\n');
    await settled(page);
    const link = await shareLink(page);
    await setEditor(page, 'namespaceManifest', '');
    await setEditor(page, 'old', '');
    await settled(page);
    await page.close();

    const shared = await open(link);
    await settled(shared);
    expect(await shared.$eval('#context', (element) => (element as HTMLDetailsElement).open)).toBe(
      true,
    );
    expect(await editorText(shared, 'namespaceManifest')).toBe(NAMESPACE);
    expect(await editorText(shared, 'old')).toBe('kind: ConfigMap\nmetadata:\n  name: settings\n');
    expect(
      await shared.$eval('#operation', (element) => (element as HTMLSelectElement).value),
    ).toBe('UPDATE');
    expect(await textOf(shared, '#context-count')).toBe('(2)');
    await shared.close();
  });

  it('evaluates with the context: the namespace manifest as syntheticRefs, the old object', async () => {
    const page = await open();
    await page.select('#library', 'recipe:labels-from-namespace');
    await page.click('#load-example');
    await settled(page);
    // The recipe's refs.yaml fills the namespace manifest; the rule copies its label.
    expect(await editorText(page, 'namespaceManifest')).toContain("cost-center: '4711'");
    await waitForText(page, '#summary', 'Patched: 1 operation');
    expect(await textOf(page, '#patched')).toContain("cost-center: '4711'");
    // Without the namespace manifest the rule's select finds nothing.
    await setEditor(page, 'namespaceManifest', '');
    await waitForText(page, '#summary', 'No change');

    // DELETE with an old object: the object deleted is the old one.
    await page.select('#library', 'recipe:protect-from-delete');
    await page.click('#load-example');
    await settled(page);
    expect(await page.$eval('#operation', (element) => (element as HTMLSelectElement).value)).toBe(
      'DELETE',
    );
    expect(await editorText(page, 'old')).not.toBe('');
    await waitForText(page, '#summary', 'Rejected by 1 rule');
    await page.close();
  });

  it('works from file:// (the static build): evaluates, offers the recipes, reads share links', async () => {
    const local = pathToFileURL(join(REPO_ROOT, 'dist/playground/index.html')).href;
    const page = await openPlayground(browser, local, problems);
    await setEditor(page, 'rules', RULE);
    await setEditor(page, 'resource', 'kind: ConfigMap\nmetadata:\n  name: settings\n');
    await settled(page);
    await waitForText(page, '#summary', 'Patched: 1 operation');
    expect(
      await page.$$eval('#library optgroup', (all) => all.map((g) => g.getAttribute('label'))),
    ).not.toContain('This server');
    const link = await shareLink(page);
    await page.close();
    const shared = await openPlayground(browser, local + link, problems);
    await settled(shared);
    expect(await editorText(shared, 'rules')).toBe(RULE);
    await shared.close();
  });

  it('ran without console errors, dialogs, uncaught exceptions or CSP violations', () => {
    expect(problems).toEqual([]);
  });
});
