import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import {
  editorText,
  focusedId,
  inViewport,
  openPlayground,
  screenshot,
  setEditor,
  settled,
  textOf,
  waitForText,
} from './support/playground-page.js';
import { startServe, type ServeProcess } from './support/serve-process.js';
import { readRecipes } from '../../scripts/playground/recipes-plugin.js';

// Issue 28, defects 4 and 5 and the layout: a code editor (line numbers, YAML highlighting,
// indentation kept) with every error marked at its line and column, the examples library,
// several resources at once, and a layout where results and errors are in view at 1440×900 and
// 390 px wide. Screenshots of both widths go to test-results/.

const RULE = `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: images
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

/** The select of match[1] has a parse error at its 19th character (position 18: `*`). */
const BAD_SELECT = RULE.replace(
  '      matchValue: ConfigMap\n',
  "      matchValue: ConfigMap\n    - select: '$.spec.containers[*.image'\n",
);

const TWO_RESOURCES = `apiVersion: v1
kind: ConfigMap
metadata:
  name: first
---
apiVersion: v1
kind: Secret
metadata:
  name: second
`;

const recipesDir = fileURLToPath(new URL('../../samples/recipes/', import.meta.url));

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const problems: string[] = [];

/** Text of the editor line holding the first error mark of an editor. */
async function markedLine(id: string): Promise<string> {
  return page.$eval(
    `#${id}-host .cm-lintRange-error`,
    (mark) => mark.closest('.cm-line')?.textContent ?? '',
  );
}

/** The rules `serve` is started with, offered in the Examples picker. */
const SERVER_RULE = RULE.replace('name: images', 'name: from-the-server');

beforeAll(async () => {
  serve = await startServe([], { 'server.yaml': SERVER_RULE });
  browser = await launchChromium();
  page = await openPlayground(browser, `${serve.url}/`, problems);
});

afterAll(async () => {
  await browser.close();
  expect(await serve.stop()).toBe(0);
});

describe('playground: editor, errors, library and layout (issue 28)', () => {
  it('has line numbers and YAML highlighting, and keeps the indentation on Enter', async () => {
    await setEditor(page, 'rules', RULE);
    const numbers = await page.$$eval('#rules-host .cm-lineNumbers .cm-gutterElement', (all) =>
      all.map((element) => element.textContent).filter((text) => /^\d+$/.test(text)),
    );
    expect(numbers).toEqual(expect.arrayContaining(['1', '2', '3', '13']));
    // Keys and values are styled tokens, not plain text.
    expect(
      await page.$$eval('#rules .cm-line span[class]', (spans) => spans.length),
    ).toBeGreaterThan(5);
    await setEditor(page, 'resource', 'kind: ConfigMap\nmetadata:\n  labels:\n    app: web');
    await page.keyboard.down('Control');
    await page.keyboard.press('End');
    await page.keyboard.up('Control');
    await page.keyboard.press('Enter');
    await page.keyboard.type('tier: gold');
    expect((await editorText(page, 'resource')).split('\n').at(-1)).toBe('    tier: gold');
  });

  it('moves through the controls with the keyboard (Escape, Tab leaves an editor)', async () => {
    await page.focus('#rules');
    await page.keyboard.press('Escape');
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Tab');
      order.push(await focusedId(page));
    }
    expect(order).toEqual(['namespace', 'operation', 'resource']);
    // Entered with Tab, the editor lets the next Tab move on (issue 39); once the user moves the
    // cursor, Tab indents (the text changes, focus stays) until Escape.
    await page.keyboard.press('End');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('resource');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).not.toBe('resource');
  });

  it('marks a YAML syntax error at its line and column, with an excerpt', async () => {
    await setEditor(page, 'resource', 'kind: ConfigMap\nmetadata:\n  name: a\n');
    await setEditor(page, 'rules', 'a: b\n  c: d\n');
    await page.waitForSelector('#rules-errors:not([hidden])', { timeout: 15_000 });
    const entry = await textOf(page, '#rules-errors');
    expect(entry).toMatch(/Line 2, column 4/);
    expect(entry).toContain('not valid YAML');
    expect(await textOf(page, '#rules-errors .excerpt')).toBe('1 | a: b\n2 |   c: d\n  |    ^');
    expect(await markedLine('rules')).toBe('  c: d');
    expect(await page.$eval('#rules', (element) => element.getAttribute('aria-invalid'))).toBe(
      'true',
    );
  });

  it('marks a field error by its path and a select parse error at its column', async () => {
    await setEditor(page, 'rules', BAD_SELECT);
    await waitForText(page, '#rules-errors', 'spec.match[1].select');
    // Line 10 is `    - select: '$.spec.containers[*.image'`: the expression starts at column
    // 16, and the mark is at the position the message names.
    const error = await textOf(page, '#rules-errors');
    const position = Number(/at position (\d+)/.exec(error)?.[1]);
    const expression = '$.spec.containers[*.image';
    expect(position).toBeLessThan(expression.length);
    expect(await textOf(page, '#rules-errors .error-jump')).toBe(
      `Line 10, column ${String(16 + position)}`,
    );
    expect(await markedLine('rules')).toBe("    - select: '$.spec.containers[*.image'");
    expect(await textOf(page, '#rules-host .cm-lintRange-error')).toBe(expression[position]);
    // The list entry moves the cursor to the mark.
    await page.click('#rules-errors .error-jump');
    expect(await focusedId(page)).toBe('rules');
    expect(await textOf(page, '#rules-host .cm-activeLine')).toBe(
      "    - select: '$.spec.containers[*.image'",
    );
    await screenshot(page, 'playground-error-marks-1440');

    // A field error without a column: marked on its key's line.
    await setEditor(page, 'rules', RULE.replace('op: add', 'op: bad'));
    await waitForText(page, '#rules-errors', 'spec.patch[0].op');
    expect(await markedLine('rules')).toBe('    - op: bad');
  });

  it("offers the built-in example, every recipe of samples/recipes and the server's rules", async () => {
    // Grouped by category (issue 39), in the order of RECIPE_CATEGORIES.
    const recipes = await readRecipes(recipesDir);
    const categories = [...new Set(recipes.map((recipe) => recipe.category))];
    await page.waitForSelector('#library option[value="server"]', { timeout: 15_000 });
    const groups = await page.$$eval('#library optgroup', (all) =>
      all.map((group) => [
        group.getAttribute('label') ?? '',
        [...group.querySelectorAll('option')].map((option) => option.value),
      ]),
    );
    expect(groups).toEqual([
      ['Examples', ['builtin']],
      ...categories.map((category) => [
        category,
        recipes.filter((r) => r.category === category).map((r) => `recipe:${r.name}`),
      ]),
      ['This server', ['server']],
    ]);
    // Every recipe loads and evaluates (no error from the engine in the page).
    for (const { name } of recipes) {
      await page.select('#library', `recipe:${name}`);
      await page.click('#load-example');
      await settled(page);
    }
    // The server's rules replace the ModRules editor only.
    const resource = await editorText(page, 'resource');
    await page.select('#library', 'server');
    await page.click('#load-example');
    await settled(page);
    expect(await editorText(page, 'rules')).toContain('name: from-the-server');
    expect(await editorText(page, 'resource')).toBe(resource);
  });

  it('gives a result per resource for several documents', async () => {
    await setEditor(page, 'rules', RULE);
    await setEditor(page, 'resource', TWO_RESOURCES);
    await page.waitForSelector('#resource-results:not([hidden])', { timeout: 15_000 });
    const choices = await page.$$eval('#resource-results button', (all) =>
      all.map((button) => button.textContent),
    );
    expect(choices).toHaveLength(2);
    expect(choices[0]).toMatch(/ConfigMap first.*Patched: 1 operation/);
    expect(choices[1]).toMatch(/Secret second.*No change/);
    await page.click('#resource-results li:nth-child(2) button');
    await waitForText(page, '#summary', 'showing 2.');
    expect(await textOf(page, '#rejections')).toBe('None: the request is allowed.');
    expect(await textOf(page, '#diff')).toContain('No difference');
  });

  it('at 1440×900 shows the results and the first error without scrolling', async () => {
    await setEditor(page, 'resource', 'kind: ConfigMap\nmetadata:\n  name: a\n');
    await settled(page);
    await page.evaluate(() => {
      window.scrollTo(0, 0);
    });
    expect(await inViewport(page, '#summary')).toBe(true);
    expect(await inViewport(page, '#rules-host')).toBe(true);
    // Side by side: no Inputs/Results tabs.
    expect(await page.$eval('#show-results', (element) => element.getClientRects().length)).toBe(0);
    await screenshot(page, 'playground-1440');
    // The resource's error list is below the fold: it is scrolled into view.
    await setEditor(page, 'resource', 'kind: ConfigMap\n  bad: indent\n');
    await page.evaluate(() => {
      window.scrollTo(0, 0);
    });
    await page.waitForSelector('#resource-errors:not([hidden])', { timeout: 15_000 });
    await page.waitForFunction(
      () => {
        const box = document.querySelector('#resource-errors')?.getBoundingClientRect();
        return box !== undefined && box.top >= 0 && box.bottom <= window.innerHeight;
      },
      { timeout: 5_000 },
    );
    await screenshot(page, 'playground-error-1440');
    await setEditor(page, 'resource', 'kind: ConfigMap\nmetadata:\n  name: a\n');
    await settled(page);
  });

  it('at 390 px wide reaches the results in one press, and shows errors in view', async () => {
    await page.setViewport({ width: 390, height: 844 });
    await page.evaluate(() => {
      window.scrollTo(0, 0);
    });
    await waitForText(page, '#summary', 'Patched: 1 operation');
    expect(await inViewport(page, '#show-results')).toBe(true);
    expect(await textOf(page, '#show-results')).toContain('Patched: 1 operation');
    await screenshot(page, 'playground-390-inputs');
    await page.click('#show-results');
    expect(await inViewport(page, '#summary')).toBe(true);
    expect(await page.$eval('#rules-host', (element) => element.getClientRects().length)).toBe(0);
    await screenshot(page, 'playground-390-results');
    // The skip link does the same, and moves focus.
    await page.click('#show-inputs');
    await page.focus('#skip-link');
    await page.keyboard.press('Enter');
    expect(await focusedId(page)).toBe('results');
    expect(await inViewport(page, '#summary')).toBe(true);

    await page.click('#show-inputs');
    await setEditor(page, 'resource', 'kind: ConfigMap\n  bad: indent\n');
    await page.evaluate(() => {
      window.scrollTo(0, 0);
    });
    await page.waitForSelector('#resource-errors:not([hidden])', { timeout: 15_000 });
    await page.waitForFunction(
      () => {
        const box = document.querySelector('#resource-errors')?.getBoundingClientRect();
        return box !== undefined && box.top >= 0 && box.bottom <= window.innerHeight;
      },
      { timeout: 5_000 },
    );
    await screenshot(page, 'playground-390-error');
  });

  it('ran without console errors, uncaught exceptions or CSP violations', () => {
    expect(problems).toEqual([]);
  });
});
