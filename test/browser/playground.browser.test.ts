import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAYGROUND_CSP } from '../../src/webhook/playground-route.js';
import { launchChromium } from './support/chromium.js';
import { startServe, type ServeProcess } from './support/serve-process.js';

// The playground page in headless Chromium (Debian's chromium package), served by a real
// `kubemod-ts serve` process: typing in the editors, the live results, errors next to the
// editors, the link that holds the state. Screenshots go to test-results/.

const artifacts = fileURLToPath(new URL('../../test-results/', import.meta.url));

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

async function openPage(fragment = ''): Promise<Page> {
  const opened = await browser.newPage();
  opened.on('pageerror', (err) => problems.push(`page error: ${String(err)}`));
  opened.on('console', (message) => {
    if (message.type() !== 'error') return;
    // Chromium logs every non-2xx fetch; the 400s of invalid input are expected.
    const source = message.location().url ?? '';
    if (message.text().includes('status of 400') && source.includes('/v1/dryrun')) return;
    problems.push(`console: ${message.text()} (${source})`);
  });
  await opened.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  await opened.goto(`${serve.url}/${fragment}`, { waitUntil: 'load' });
  return opened;
}

/** Replaces an editor's content by typing `text` into it, key by key. */
async function typeInto(selector: string, text: string): Promise<void> {
  await page.$eval(selector, (element) => {
    (element as HTMLTextAreaElement).select();
  });
  await page.keyboard.press('Backspace');
  await page.type(selector, text);
}

async function textOf(selector: string): Promise<string> {
  return page.$eval(selector, (element) => element.textContent);
}

async function waitForText(selector: string, expected: string): Promise<void> {
  await page.waitForFunction(
    (sel, text) => document.querySelector(sel)?.textContent.includes(text) === true,
    { timeout: 15_000 },
    selector,
    expected,
  );
}

async function screenshot(name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: `${artifacts}${name}.png`, fullPage: true });
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
    expect(response?.headers()['content-security-policy']).toBe(PLAYGROUND_CSP);
    expect(response?.headers()['x-content-type-options']).toBe('nosniff');
    await page.close();

    page = await openPage();
    await waitForText('#summary', 'Patched: 1 operation');
    expect(await textOf('#patched')).toContain('owner: storefront');
    expect(await page.$eval('#status', (element) => element.textContent)).toBe('Up to date');
    // Every control has a label.
    const unlabelled = await page.$$eval('textarea, input, select', (elements) =>
      elements
        .filter((element) => (element as HTMLInputElement).labels?.length !== 1)
        .map((element) => element.id),
    );
    expect(unlabelled).toEqual([]);
  });

  it('types a rule and a resource and shows the patched YAML, the diff and the explain panel', async () => {
    await typeInto('#rules', PATCH_RULE);
    await typeInto('#resource', RESOURCE);
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

  it('renders an explain document (docs/explain.md) as a collapsible, keyboard-operable tree', async () => {
    // The renderer of the Explain panel on a hand-written document of the explain schema.
    const node = (kind: string, status: string, label: string, children: unknown[] = []) => ({
      kind,
      status,
      label,
      children,
    });
    const document = {
      ...node('explanation', 'applied', 'CREATE ConfigMap default/settings: 1 rule applied', [
        node('rule', 'applied', 'Patch default/<b>add-tier</b> applied at step 1', [
          node('match', 'matched', "spec.match[0] select '$.kind' gave [ConfigMap]: matched"),
          node('operation', 'applied', 'spec.patch[0] add /metadata/labels/tier', [
            node('patch', 'applied', 'add /metadata/labels/tier = "gold"'),
          ]),
        ]),
        node('rule', 'skipped', 'Patch team-b/elsewhere: skipped (namespace)'),
      ]),
      explainVersion: 1,
    };
    // A string, so that the test runner's module transform leaves the page's import() alone.
    const text = await page.evaluate(`(async () => {
      const { renderExplain } = await import('/explain-view.js');
      const target = document.createElement('div');
      target.id = 'tree-under-test';
      document.body.append(target);
      renderExplain(target, ${JSON.stringify(document)});
      return target.textContent;
    })()`);
    expect(text).toContain('applied Patch default/<b>add-tier</b> applied at step 1');
    expect(text).toContain('skipped Patch team-b/elsewhere: skipped (namespace)');
    expect(await page.$$('#tree-under-test b')).toHaveLength(0);
    const statuses = await page.$$eval('#tree-under-test .explain-tree li', (items) =>
      items.map((item) => (item as HTMLElement).dataset.status),
    );
    expect(statuses).toEqual(['applied', 'applied', 'matched', 'applied', 'applied', 'skipped']);
    // The operation node (depth 2) starts closed; Enter on its summary opens it.
    const summary = await page.$('#tree-under-test li.kind-operation > details > summary');
    if (summary === null) throw new Error('no operation node');
    const isOpen = (): Promise<boolean> =>
      summary.evaluate((element) => (element.parentElement as HTMLDetailsElement).open);
    expect(await isOpen()).toBe(false);
    await summary.focus();
    await page.keyboard.press('Enter');
    expect(await isOpen()).toBe(true);
    mkdirSync(artifacts, { recursive: true });
    await (
      await page.$('#tree-under-test')
    )?.screenshot({
      path: `${artifacts}playground-explain-tree.png`,
    });
    await page.$eval('#tree-under-test', (element) => {
      element.remove();
    });
  });

  it('shows a rejection, with markup in the message as plain text', async () => {
    await page.focus('#rules');
    await page.keyboard.down('Control');
    await page.keyboard.press('End');
    await page.keyboard.up('Control');
    await page.type('#rules', REJECT_RULE);
    await waitForText('#summary', 'Rejected by 1 rule');
    const rejection = await textOf('#rejections');
    expect(rejection).toBe(
      'default/no-fast-mode: "mode fast is off limits <img src=x onerror=\\"window.xss=1\\">"',
    );
    expect(await page.$$('#results img')).toHaveLength(0);
    expect(await page.evaluate(() => (window as unknown as { xss?: number }).xss)).toBeUndefined();
    await screenshot('playground');
  });

  it('shows an invalid rule’s field error next to the ModRules editor', async () => {
    await page.focus('#rules');
    await page.keyboard.down('Control');
    await page.keyboard.press('End');
    await page.keyboard.up('Control');
    await page.type('#rules', BROKEN_RULE);
    await page.waitForSelector('#rules-error:not([hidden])', { timeout: 15_000 });
    const error = await textOf('#rules-error');
    expect(error).toMatch(
      /^Error KM6002modRules\[2\]: ModRule default\/broken is invalid: spec\.match\[0\]\.select: /,
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
      '#rules',
      (element) => element.getBoundingClientRect().toJSON() as DOMRect,
    );
    const box = await page.$eval(
      '#rules-error',
      (element) => element.getBoundingClientRect().toJSON() as DOMRect,
    );
    expect(box.top).toBeGreaterThanOrEqual(editor.bottom);
    expect(box.top - editor.bottom).toBeLessThan(20);
    expect(box.left).toBe(editor.left);
    expect(await page.$eval('#general-error', (element) => (element as HTMLElement).hidden)).toBe(
      true,
    );
    await screenshot('playground-invalid-rule');

    // Fixing the rule clears the error.
    await typeInto('#rules', PATCH_RULE + REJECT_RULE);
    await page.waitForSelector('#rules-error[hidden]', { timeout: 15_000 });
    await waitForText('#summary', 'Rejected by 1 rule');
    expect(await page.$eval('#rules', (element) => element.hasAttribute('aria-invalid'))).toBe(
      false,
    );
  });

  it('shows a resource error next to the resource editor and evaluates the chosen operation', async () => {
    await typeInto('#resource', 'kind: ConfigMap\n  bad: indent\n');
    await page.waitForSelector('#resource-error:not([hidden])', { timeout: 15_000 });
    expect(await textOf('#resource-error')).toContain('resourceManifest is not valid YAML');
    await typeInto('#resource', RESOURCE);
    await waitForText('#summary', 'Rejected by 1 rule');

    // DELETE: neither rule handles it (both default to CREATE and UPDATE).
    await page.select('#operation', 'DELETE');
    await waitForText('#summary', 'No change');
    expect(await textOf('#rejections')).toBe('None: the request is allowed.');
    await page.select('#operation', 'CREATE');
    await waitForText('#summary', 'Rejected by 1 rule');
  });

  it('moves through the controls with the keyboard (Tab leaves the editors)', async () => {
    await page.focus('#rules');
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate(() => document.activeElement?.id ?? ''));
    }
    expect(order).toEqual(['namespace', 'operation', 'resource']);
  });

  it('keeps the editors in the link, and says when a link cannot be read', async () => {
    await page.waitForFunction(() => location.hash.startsWith('#v1.'), { timeout: 15_000 });
    const link = await page.evaluate(() => location.hash);
    const shared = await openPage(link);
    expect(await shared.$eval('#rules', (element) => (element as HTMLTextAreaElement).value)).toBe(
      PATCH_RULE + REJECT_RULE,
    );
    expect(
      await shared.$eval('#resource', (element) => (element as HTMLTextAreaElement).value),
    ).toBe(RESOURCE);
    await shared.waitForFunction(
      () => document.querySelector('#summary')?.textContent === 'Rejected by 1 rule',
      { timeout: 15_000 },
    );
    await shared.close();

    const damaged = await openPage('#v1.not-a-real-state');
    await damaged.waitForSelector('#notice:not([hidden])', { timeout: 15_000 });
    expect(await damaged.$eval('#notice', (element) => element.textContent)).toMatch(
      /^This link's content cannot be read: the link is damaged .*Showing the example\.$/,
    );
    expect(
      await damaged.$eval('#rules', (element) => (element as HTMLTextAreaElement).value),
    ).toContain('name: deployment-owner');
    await damaged.close();
  });

  it('ran without console errors, uncaught exceptions or CSP violations', () => {
    expect(problems).toEqual([]);
  });
});
