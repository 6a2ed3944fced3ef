import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';

/** Where screenshots go (test-results/, kept by CI). */
export const ARTIFACTS = fileURLToPath(new URL('../../../test-results/', import.meta.url));

/**
 * Opens the page (a fresh tab; localStorage is shared by the browser's tabs of one origin) and
 * records its console errors, uncaught exceptions and CSP violations into `problems`.
 */
export async function openPlayground(
  browser: Browser,
  url: string,
  problems: string[],
  viewport: { width: number; height: number } = { width: 1440, height: 900 },
): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  page.on('pageerror', (err) => problems.push(`page error: ${String(err)}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const source = message.location().url ?? '';
    // Chromium logs every non-2xx fetch: the 400s of invalid input are expected, and so is the
    // 404 of server-rules.json from a server that offers no rules.
    if (message.text().includes('status of 400') && source.includes('/v1/dryrun')) return;
    if (message.text().includes('status of 404') && source.includes('server-rules.json')) return;
    problems.push(`console: ${message.text()} (${source})`);
  });
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('#rules.cm-content');
  return page;
}

/** An editor's text (CodeMirror: one `.cm-line` per line). */
export async function editorText(page: Page, id: string): Promise<string> {
  return page.$eval(`#${id}`, (element) =>
    [...element.querySelectorAll('.cm-line')].map((line) => line.textContent).join('\n'),
  );
}

/**
 * Replaces an editor's text as a user would: focus, select all (Ctrl+A), then insert the text
 * (as a paste does; typing key by key would add the editor's own indentation to every line).
 */
export async function setEditor(page: Page, id: string, text: string): Promise<void> {
  await page.focus(`#${id}`);
  await page.keyboard.down('Control');
  await page.keyboard.press('a');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
  if (text !== '') {
    await page.keyboard.sendCharacter(text);
  }
  await page.waitForFunction(
    (sel, expected) =>
      [...(document.querySelector(sel)?.querySelectorAll('.cm-line') ?? [])]
        .map((line) => line.textContent)
        .join('\n') === expected,
    { timeout: 5_000 },
    `#${id}`,
    text.replace(/\n$/, '\n'),
  );
}

export async function textOf(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (element) => element.textContent);
}

export async function waitForText(page: Page, selector: string, expected: string): Promise<void> {
  await page.waitForFunction(
    (sel, text) => document.querySelector(sel)?.textContent.includes(text) === true,
    { timeout: 15_000 },
    selector,
    expected,
  );
}

/** The id of the focused element, or of the editor whose content has focus. */
export async function focusedId(page: Page): Promise<string> {
  return page.evaluate(() => document.activeElement?.id ?? '');
}

/** Whether an element's box is inside the viewport. */
export async function inViewport(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (element) => {
    const box = element.getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight;
  });
}

export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage });
}

/**
 * Waits until the page has evaluated (and so saved its draft and link) the current inputs: past
 * the 300 ms debounce, then until the status says so.
 */
export async function settled(page: Page): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 450));
  await page.waitForFunction(
    () => document.querySelector('#status')?.textContent === 'Up to date',
    { timeout: 15_000 },
  );
}
