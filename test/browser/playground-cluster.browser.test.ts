import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlaygroundPage } from '../../scripts/playground/build-page.js';
import { launchChromium } from './support/chromium.js';
import {
  editorText,
  openPlayground,
  screenshot,
  setEditor,
  settled,
  textOf,
  waitForText,
} from './support/playground-page.js';
import { startServe, type ServeProcess } from './support/serve-process.js';

// Issue 35 in the playground: the context panel's "Cluster objects" editor is what the rules'
// lookups read. The configmap-value recipe brings its cluster.yaml; the looked-up value is in the
// patch; editing the ConfigMap changes the answer; a bad cluster document is marked at its line;
// the cluster objects travel with the share link. Both ways the page evaluates: asking
// `kubemod-ts serve` (whose CSP makes the page send PUT /v1/dryrun) and the static build from
// file:// (the engine in the page).

/** The patch operation the recipe's rule adds, with the log level it looked up. */
const annotation = (level: string): string =>
  `"path": "/metadata/annotations/example.com~1log-level",\n    "value": "${level}"`;

/** An answer whose key is not a string: refused, naming the document and the field. */
const BAD_ANSWERS = `---
kind: ExternalDataAnswers
provider: registry
answers:
  - key: 7
    value: {allowed: true}
`;

let serve: ServeProcess;
let browser: Browser;
let outDir: string;
const problems: string[] = [];

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'kubemod-cluster-page-'));
  await buildPlaygroundPage(outDir);
  serve = await startServe();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser.close();
  expect(await serve.stop()).toBe(0);
  await rm(outDir, { recursive: true, force: true });
});

/** The JSON patch panel's text once it holds `expected`. */
async function patchWith(page: Page, expected: string): Promise<string> {
  await waitForText(page, '#patch', expected);
  return textOf(page, '#patch');
}

async function clusterObjectsAnswer(page: Page, mode: string): Promise<void> {
  await page.select('#library', 'recipe:configmap-value');
  await page.click('#load-example');
  await settled(page);
  // The recipe's cluster.yaml is in the editor, and the context panel is open to show it.
  const cluster = await editorText(page, 'cluster');
  expect(cluster).toContain('name: platform-settings');
  expect(cluster).toContain('logLevel: debug');
  expect(await page.$eval('#context', (element) => (element as HTMLDetailsElement).open)).toBe(
    true,
  );
  // The ConfigMap of the rule's namespace answers, not the other namespace's.
  expect(await patchWith(page, annotation('debug'))).not.toContain('trace');
  expect(await textOf(page, '#failures-count')).toBe('(0)');

  // Editing the ConfigMap changes the answer.
  await setEditor(page, 'cluster', cluster.replace('logLevel: debug', 'logLevel: warn'));
  await patchWith(page, annotation('warn'));
  await waitForText(page, '#patched', 'example.com/log-level: warn');

  // The cluster objects are in the share link: opened elsewhere, the same answer.
  await settled(page);
  const link = await page.evaluate(() => location.hash);
  expect(link).toMatch(/^#v1\./);
  const other = await openPlayground(browser, `${page.url().split('#')[0] ?? ''}${link}`, problems);
  expect(await editorText(other, 'cluster')).toContain('logLevel: warn');
  await patchWith(other, annotation('warn'));
  await other.close();

  // Without the ConfigMap of its namespace the rule's default applies (the other namespace's
  // ConfigMap, still listed, is never read).
  const otherNamespaceOnly = cluster.slice(cluster.indexOf('# Another namespace'));
  expect(otherNamespaceOnly).toContain('namespace: billing');
  await setEditor(page, 'cluster', otherNamespaceOnly);
  await patchWith(page, annotation('info'));
  // With no cluster state at all, the lookup is unavailable: the rule fails, naming it.
  await setEditor(page, 'cluster', '');
  await waitForText(page, '#failures-count', '(1)');
  expect(await textOf(page, '#failures')).toContain('log-level-from-configmap');

  // A bad document is refused and marked in the Cluster objects editor at the field's line.
  const withBad = `${cluster}${BAD_ANSWERS}`;
  await setEditor(page, 'cluster', withBad);
  await waitForText(page, '#cluster-errors', 'cluster[2].answers[0].key');
  const keyLine = withBad.split('\n').indexOf('  - key: 7') + 1;
  expect(await textOf(page, '#cluster-errors .error-jump')).toBe(
    `Line ${String(keyLine)}, column 5`,
  );
  await page.waitForSelector('#cluster-host .cm-lintRange-error', { timeout: 5_000 });
  expect(
    await page.$eval(
      '#cluster-host .cm-lintRange-error',
      (mark) => mark.closest('.cm-line')?.textContent ?? '',
    ),
  ).toBe('  - key: 7');
  // Its "Line, column" button moves the cursor there.
  await page.click('#cluster-errors .error-jump');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('cluster');
  await page.$eval('#cluster-errors', (element) => {
    element.scrollIntoView({ block: 'center' });
  });
  await screenshot(page, `playground-cluster-objects-${mode}`);

  // Fixed again: the answer is back.
  await setEditor(page, 'cluster', cluster);
  await patchWith(page, annotation('debug'));
  expect(await page.$eval('#cluster-errors', (element) => (element as HTMLElement).hidden)).toBe(
    true,
  );
}

describe('the Cluster objects editor', () => {
  it('feeds lookups through kubemod-ts serve (PUT /v1/dryrun with `cluster`)', async () => {
    const page = await openPlayground(browser, `${serve.url}/`, problems);
    const sent: Promise<string | undefined>[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/v1/dryrun')) sent.push(request.fetchPostData());
    });
    await clusterObjectsAnswer(page, 'server');
    // The page asked its server, with the editor's text as `cluster`.
    const clusters = (await Promise.all(sent)).map(
      (body) => (JSON.parse(body ?? '{}') as { cluster?: unknown }).cluster,
    );
    expect(clusters.some((cluster) => typeof cluster === 'string')).toBe(true);
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('feeds lookups in the static build from file:// (the engine in the page)', async () => {
    const page = await openPlayground(
      browser,
      pathToFileURL(join(outDir, 'index.html')).href,
      problems,
    );
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await clusterObjectsAnswer(page, 'static');
    for (const url of requests) expect(url.startsWith('file://'), url).toBe(true);
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);
});
