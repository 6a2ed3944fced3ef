import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import {
  editorText,
  focusedId,
  openPlayground,
  screenshot,
  setEditor,
  settled,
  textOf,
  waitForText,
} from './support/playground-page.js';
import { startStaticServer, type StaticServer } from './support/static-server.js';

// Issue 39, the rule author's defects in the page: an unquoted template named at its line with
// the fix, results the API server would refuse flagged, rules failing at run time marked in the
// editor, an unused Node manifest said, a live context count, visible example descriptions, Tab
// leaving an editor entered by keyboard, resizable editors, and true wording. The static build
// (dist/playground, `npm run playground:build`) served over HTTP on 127.0.0.1.

const PAGE_DIR = fileURLToPath(new URL('../../dist/playground/', import.meta.url));

const rule = (patch: string): string => `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: labels
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: Pod
  patch:
${patch}`;

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
spec:
  containers:
    - name: web
      image: nginx:1.27
`;

const NAMESPACE = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    id: '0042'
`;

const NODE = `apiVersion: v1
kind: Node
metadata:
  name: node-1
  labels:
    topology.kubernetes.io/zone: eu-1a
`;

let server: StaticServer;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  server = await startStaticServer(PAGE_DIR);
  browser = await launchChromium();
  page = await openPlayground(browser, `${server.url}/`, problems);
  await settled(page);
});

afterAll(async () => {
  await browser.close();
  await server.close();
});

describe('playground: authoring defects of issue 39', () => {
  it('names an unquoted template at its line and says to quote it', async () => {
    await setEditor(page, 'resource', POD);
    await setEditor(
      page,
      'rules',
      rule(
        '    - op: add\n      path: /metadata/labels/owner\n      value: {{ .Target.metadata.name }}\n',
      ),
    );
    await page.waitForSelector('#rules-errors:not([hidden])', { timeout: 15_000 });
    const error = await textOf(page, '#rules-errors');
    expect(error).not.toContain('complex keys');
    expect(error).toContain('the template {{ .Target.metadata.name }} is not quoted');
    expect(error).toContain("write it quoted: value: '{{ .Target.metadata.name }}'");
    expect(await textOf(page, '#rules-errors .error-jump')).toBe('Line 13, column 14');
    const marked = await page.$eval(
      '#rules-host .cm-lintRange-error',
      (mark) => mark.closest('.cm-line')?.textContent ?? '',
    );
    expect(marked).toBe('      value: {{ .Target.metadata.name }}');
    await screenshot(page, 'issue39-unquoted-template');
  });

  it('warns when the API server would refuse the result', async () => {
    await page.click('#context > summary');
    await setEditor(page, 'namespaceManifest', NAMESPACE);
    await setEditor(
      page,
      'rules',
      rule(`    - op: add
      path: /metadata/labels/team
      value: '{{ .Target.metadata.labels.owner }}'
    - op: add
      path: /metadata/labels/ns-id
      value: '{{ index .Target.syntheticRefs.namespace.metadata.labels "id" }}'
`),
    );
    await settled(page);
    const summary = await textOf(page, '#summary');
    expect(summary).toContain('Patched');
    expect(summary).toContain('the API server would refuse the result');
    expect(await page.$eval('#summary', (e) => (e as HTMLElement).dataset.outcome)).toBe('refused');
    const listed = await page.$$eval('#problems li', (items) => items.map((i) => i.textContent));
    expect(listed).toEqual([
      expect.stringMatching(/^metadata\.labels\.team: "<no value>" is not a valid label value/),
      expect.stringMatching(/^metadata\.labels\.ns-id: must be a string, got the number 34; /),
    ]);
    expect(await page.$eval('#problems-section', (e) => (e as HTMLElement).hidden)).toBe(false);
  });

  it('marks a rule that fails at run time in the editor, in readable colours', async () => {
    await setEditor(
      page,
      'rules',
      rule(`    - op: add
      path: /metadata/labels/zone
      value: '{{ .Namespace.metadata.name }}'
`),
    );
    await settled(page);
    expect(await textOf(page, '#summary')).toContain('1 rule failed');
    await page.waitForSelector('#rules-host .cm-lintRange-error', { timeout: 5_000 });
    const marked = await page.$eval(
      '#rules-host .cm-lintRange-error',
      (mark) => mark.closest('.cm-line')?.textContent ?? '',
    );
    expect(marked).toContain('value:');
    // The summary is not grey: it has the warning colour, at AA contrast.
    const colours = await page.$eval('#summary', (e) => ({
      summary: getComputedStyle(e).color,
      muted: getComputedStyle(document.documentElement).getPropertyValue('--muted'),
      outcome: (e as HTMLElement).dataset.outcome,
    }));
    expect(colours.outcome).toBe('failed');
    expect(colours.summary).not.toBe(hexToRgb(colours.muted.trim()));
    await screenshot(page, 'issue39-runtime-failure-marked');
  });

  it('says when the Node manifest is not used, and keeps the context count current', async () => {
    await setEditor(page, 'rules', rule('    - { op: add, path: /metadata/labels/a, value: b }\n'));
    expect(await textOf(page, '#context-count')).toBe('(1)');
    await setEditor(page, 'nodeManifest', NODE);
    expect(await textOf(page, '#context-count')).toBe('(2)');
    await settled(page);
    await page.waitForSelector('#nodeManifest-note:not([hidden])', { timeout: 5_000 });
    expect(await textOf(page, '#nodeManifest-note')).toMatch(
      /^Not used: the webhook injects a node only into a Pod annotated ref\.kubemod\.io\/nodename/,
    );
    await setEditor(
      page,
      'resource',
      POD.replace(
        '  namespace: shop\n',
        '  namespace: shop\n  annotations:\n    ref.kubemod.io/nodename: node-1\n',
      ),
    );
    await settled(page);
    expect(await page.$eval('#nodeManifest-note', (e) => (e as HTMLElement).hidden)).toBe(true);
    await setEditor(page, 'nodeManifest', '');
    await setEditor(page, 'namespaceManifest', '');
    expect(await textOf(page, '#context-count')).toBe('');
  });

  it('shows the chosen example’s description on the page, not only in a tooltip', async () => {
    await page.select('#library', 'recipe:execution-tiers');
    const description = await textOf(page, '#library-description');
    expect(description).toContain('Patch rules run tier by tier');
    expect(
      await page.$eval('#library-description', (e) => e.getBoundingClientRect().height),
    ).toBeGreaterThan(0);
  });

  it('lets Tab leave an editor entered with the keyboard; Tab indents once the user types', async () => {
    await setEditor(page, 'resource', 'kind: ConfigMap\n');
    await page.focus('#operation');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('resource');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).not.toBe('resource');
    expect(await editorText(page, 'resource')).toBe('kind: ConfigMap\n');
    // Back with Shift+Tab, then a key: now Tab indents, and Escape then Tab leaves.
    await page.keyboard.down('Shift');
    await page.keyboard.press('Tab');
    await page.keyboard.up('Shift');
    expect(await focusedId(page)).toBe('resource');
    await page.keyboard.press('End');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('resource');
    expect(await editorText(page, 'resource')).not.toBe('kind: ConfigMap\n');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).not.toBe('resource');
    expect(await textOf(page, '#keys-hint')).toContain('Tab right after entering it moves on');
  });

  it('has editors the user can resize', async () => {
    expect(await page.$eval('#rules-host', (e) => getComputedStyle(e).resize)).toBe('vertical');
    const height = await page.$eval('#rules-host', (host) => {
      (host as HTMLElement).style.height = '640px';
      return host.querySelector('.cm-editor')?.getBoundingClientRect().height ?? 0;
    });
    expect(height).toBeGreaterThan(600);
  });

  it('says true things: the footer and the size limit', async () => {
    const footer = await textOf(page, '.foot');
    expect(footer).not.toContain('nothing is stored');
    expect(footer).toContain('local storage');
    // Pasted, not compared line by line: the editor draws only the visible part of a long line.
    await page.focus('#resource');
    await page.keyboard.down('Control');
    await page.keyboard.press('a');
    await page.keyboard.up('Control');
    await page.keyboard.sendCharacter(`kind: ConfigMap\ndata:\n  big: ${'x'.repeat(270_000)}\n`);
    await waitForText(page, '#resource-errors', 'characters of YAML text');
    expect(await textOf(page, '#resource-errors')).not.toContain('send larger manifests as JSON');
    expect(await textOf(page, '#stale-note')).toContain('earlier version of the inputs');
    expect(problems).toEqual([]);
  });
});

function hexToRgb(hex: string): string {
  const value = Number.parseInt(hex.replace('#', ''), 16);
  return `rgb(${String(value >> 16)}, ${String((value >> 8) & 255)}, ${String(value & 255)})`;
}
