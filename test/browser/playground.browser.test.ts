import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playgroundHtmlCsp } from '../../src/webhook/playground/playground-route.js';
import { launchChromium } from './support/chromium.js';
import {
  ARTIFACTS,
  editorText,
  openPlayground,
  screenshot,
  setEditor,
  textOf as textIn,
  waitForText as waitIn,
} from './support/playground-page.js';
import { startServe, type ServeProcess } from './support/serve-process.js';

// The playground page in headless Chromium (Debian's chromium package), served by a real
// `kubemod-ts serve` process: editing the CodeMirror editors, the live results, errors next to
// and in the editors, the link that holds the state. Screenshots go to test-results/.

const PATCH_RULE = `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: add-tier
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  patch:
    - op: add
      path: /metadata/labels/tier
      value: gold
`;

// The message carries markup: it must be shown as text, never become an element.
const REJECT_RULE = `---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: no-fast-mode
spec:
  type: Reject
  match:
    - select: '$.data.mode'
      matchValue: fast
  rejectMessage: 'mode {{ .Target.data.mode }} is off limits <img src=x onerror="window.xss=1">'
`;

const BROKEN_RULE = `---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: broken
spec:
  type: Patch
  match:
    - select: '$.['
  patch:
    - op: add
      path: /data/x
      value: y
`;

const RESOURCE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels:
    app: web
data:
  mode: fast
`;

let serve: ServeProcess;
let browser: Browser;
let page: Page;
/** Console errors and uncaught exceptions of every page opened, and CSP violations. */
const problems: string[] = [];

const openPage = (fragment = ''): Promise<Page> =>
  openPlayground(browser, `${serve.url}/${fragment}`, problems, { width: 1400, height: 1000 });
const textOf = (selector: string): Promise<string> => textIn(page, selector);
const waitForText = (selector: string, expected: string): Promise<void> =>
  waitIn(page, selector, expected);
/** Appends text at the end of an editor. */
async function appendTo(id: string, text: string): Promise<void> {
  await setEditor(page, id, (await editorText(page, id)) + text);
}

beforeAll(async () => {
  serve = await startServe();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser.close();
  expect(await serve.stop()).toBe(0);
});

describe('playground page (headless Chromium, kubemod-ts serve)', () => {
  it('is served with a strict CSP and evaluates the example on load', async () => {
    page = await browser.newPage();
    const response = await page.goto(`${serve.url}/`);
    expect(response?.status()).toBe(200);
    const policy = response?.headers()['content-security-policy'] ?? '';
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1] ?? 'none';
    expect(policy).toBe(playgroundHtmlCsp(nonce));
    expect(response?.headers()['x-content-type-options']).toBe('nosniff');
    await page.close();

    page = await openPage();
    await waitForText('#summary', 'Patched: 1 operation');
    expect(await textOf('#patched')).toContain('owner: storefront');
    expect(await page.$eval('#status', (element) => element.textContent)).toBe('Up to date');
    // Every control has a label: inputs by <label>, the editors by aria-labelledby.
    const unlabelled = await page.$$eval('input, select', (elements) =>
      elements
        .filter((element) => (element as HTMLInputElement).labels?.length !== 1)
        .map((element) => element.id),
    );
    expect(unlabelled).toEqual([]);
    const editorLabels = await page.$$eval('.cm-content', (elements) =>
      elements.map(
        (element) =>
          document.getElementById(element.getAttribute('aria-labelledby') ?? '')?.textContent,
      ),
    );
    expect(editorLabels).toEqual([
      'ModRules',
      'Resource',
      'Namespace manifest',
      'Node manifest',
      'Old object',
      'Cluster objects',
    ]);
  });

  it('types a rule and a resource and shows the patched YAML, the diff and the explain panel', async () => {
    await setEditor(page, 'rules', PATCH_RULE);
    await setEditor(page, 'resource', RESOURCE);
    await waitForText('#patched', 'tier: gold');
    expect(await textOf('#summary')).toBe('Patched: 1 operation');
    expect(await textOf('#patched')).toBe(
      [
        'apiVersion: v1',
        'data:',
        '  mode: fast',
        'kind: ConfigMap',
        'metadata:',
        '  labels:',
        '    app: web',
        '    tier: gold',
        '  name: settings',
        // Filled in as the API server does: a namespace-less ConfigMap lands in default.
        '  namespace: default',
        '',
      ].join('\n'),
    );
    const added = await page.$$eval('#diff .add', (lines) => lines.map((line) => line.textContent));
    expect(added).toEqual(['+    tier: gold']);
    expect(await page.$$eval('#diff .hunk', (lines) => lines.length)).toBe(1);
    expect(JSON.parse(await textOf('#patch'))).toEqual([
      { op: 'add', path: '/metadata/labels/tier', value: 'gold' },
    ]);
    expect(await textOf('#rejections')).toBe('None: the request is allowed.');
    // The explain tree of the server's answer: the rule, its match item, its operation.
    await waitForText('#explain', 'default/add-tier · Patch · tier 0 · step 1: applied');
    const explain = await textOf('#explain');
    expect(explain).toContain('spec.match[0] $.kind = "ConfigMap": got ConfigMap → matched');
    expect(explain).toContain('spec.patch[0] add /metadata/labels/tier: applied');
    expect(explain).toContain('add /metadata/labels/tier = "gold"');
    expect(explain).not.toContain('did not return an explanation');
  });

  it('renders the explain document as a collapsible, keyboard-operable tree', async () => {
    const statuses = await page.$$eval('#explain .explain-tree li', (items) =>
      items.map((item) => (item as HTMLElement).dataset.status),
    );
    expect(statuses[0]).toBe('applied');
    expect(statuses).toContain('matched');
    const summary = await page.$('#explain .explain-tree li > details > summary');
    if (summary === null) throw new Error('no collapsible node');
    const isOpen = (): Promise<boolean> =>
      summary.evaluate((element) => (element.parentElement as HTMLDetailsElement).open);
    const before = await isOpen();
    await summary.focus();
    await page.keyboard.press('Enter');
    expect(await isOpen()).toBe(!before);
    await page.keyboard.press('Enter');
    expect(await isOpen()).toBe(before);
    await (
      await page.$('#explain')
    )?.screenshot({
      path: `${ARTIFACTS}playground-explain-tree.png`,
    });
  });

  it('shows a rejection, with markup in the message as plain text', async () => {
    await appendTo('rules', REJECT_RULE);
    await waitForText('#summary', 'Rejected by 1 rule');
    const rejection = await textOf('#rejections');
    expect(rejection).toBe(
      'default/no-fast-mode: "mode fast is off limits <img src=x onerror=\\"window.xss=1\\">"',
    );
    expect(await page.$$('#results img')).toHaveLength(0);
    expect(await page.evaluate(() => (window as unknown as { xss?: number }).xss)).toBeUndefined();
    await screenshot(page, 'playground', true);
  });

  it('shows an invalid rule’s field error next to the ModRules editor', async () => {
    await appendTo('rules', BROKEN_RULE);
    await page.waitForSelector('#rules-errors:not([hidden])', { timeout: 15_000 });
    const error = await textOf('#rules-errors');
    expect(error).toMatch(
      /^Error KM6002Line \d+, column \d+modRules\[2\]: ModRule default\/broken is invalid: spec\.match\[0\]\.select: /,
    );
    expect(await page.$eval('#rules', (element) => element.getAttribute('aria-invalid'))).toBe(
      'true',
    );
    expect(await page.$eval('#status', (element) => element.textContent)).toBe('Error');
    expect(await page.$eval('#results', (element) => element.classList.contains('stale'))).toBe(
      true,
    );
    // Right under the editor, as wide as it.
    const editor = await page.$eval(
      '#rules-host',
      (element) => element.getBoundingClientRect().toJSON() as DOMRect,
    );
    const box = await page.$eval(
      '#rules-errors',
      (element) => element.getBoundingClientRect().toJSON() as DOMRect,
    );
    expect(box.top).toBeGreaterThanOrEqual(editor.bottom);
    expect(box.top - editor.bottom).toBeLessThan(20);
    expect(box.left).toBe(editor.left);
    expect(await page.$eval('#general-error', (element) => (element as HTMLElement).hidden)).toBe(
      true,
    );
    await screenshot(page, 'playground-invalid-rule', true);

    // Fixing the rule clears the error.
    await setEditor(page, 'rules', PATCH_RULE + REJECT_RULE);
    await page.waitForSelector('#rules-errors[hidden]', { timeout: 15_000 });
    await waitForText('#summary', 'Rejected by 1 rule');
    expect(await page.$eval('#rules', (element) => element.hasAttribute('aria-invalid'))).toBe(
      false,
    );
  });

  it('shows a resource error next to the resource editor and evaluates the chosen operation', async () => {
    await setEditor(page, 'resource', 'kind: ConfigMap\n  bad: indent\n');
    await page.waitForSelector('#resource-errors:not([hidden])', { timeout: 15_000 });
    expect(await textOf('#resource-errors')).toContain('resourceManifest is not valid YAML');
    await setEditor(page, 'resource', RESOURCE);
    await waitForText('#summary', 'Rejected by 1 rule');

    // DELETE: neither rule handles it (both default to CREATE and UPDATE).
    await page.select('#operation', 'DELETE');
    await waitForText('#summary', 'No change');
    expect(await textOf('#rejections')).toBe('None: the request is allowed.');
    await page.select('#operation', 'CREATE');
    await waitForText('#summary', 'Rejected by 1 rule');
  });

  it('keeps the editors in the link, and says when a link cannot be read', async () => {
    await page.waitForFunction(() => location.hash.startsWith('#v1.'), { timeout: 15_000 });
    const link = await page.evaluate(() => location.hash);
    const shared = await openPage(link);
    expect(await editorText(shared, 'rules')).toBe(PATCH_RULE + REJECT_RULE);
    expect(await editorText(shared, 'resource')).toBe(RESOURCE);
    await shared.waitForFunction(
      () => document.querySelector('#summary')?.textContent === 'Rejected by 1 rule',
      { timeout: 15_000 },
    );
    await shared.close();

    const damaged = await openPage('#v1.not-a-real-state');
    await damaged.waitForSelector('#notice:not([hidden])', { timeout: 15_000 });
    expect(await damaged.$eval('#notice', (element) => element.textContent)).toMatch(
      /^This link's content cannot be read: the link is damaged .*Your editors are unchanged\.$/,
    );
    // The editors hold the draft (this browser's last editors), not the example.
    expect(await editorText(damaged, 'rules')).toBe(PATCH_RULE + REJECT_RULE);
    await damaged.close();
  });

  it('ran without console errors, uncaught exceptions or CSP violations', () => {
    expect(problems).toEqual([]);
  });
});
