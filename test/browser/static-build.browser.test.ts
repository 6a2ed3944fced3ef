import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildPlaygroundPage,
  RECIPES_DIR,
  REPO_ROOT,
} from '../../scripts/playground/build-page.js';
import { readRecipes, type PageRecipe } from '../../scripts/playground/recipes-plugin.js';
import { launchChromium } from './support/chromium.js';

// The static build (npm run playground:build) opened from file:// in headless Chromium: every
// example evaluated by the engine bundled into the page gives the answer `kubemod-ts dryrun -o
// json` gives for the same input, and the page makes no network request.

const run = promisify(execFile);

/** One input evaluated both ways. */
interface Case {
  readonly name: string;
  readonly operation: string;
  readonly modrules: string;
  readonly resource: string;
  readonly refs?: string | undefined;
  readonly old?: string | undefined;
  readonly cluster?: string | undefined;
}

/**
 * A rule whose templates reach every part of the engine the page replaces (RE2, hashes, base64,
 * byte lengths and hex of Unicode text), on a resource with non-ASCII values.
 */
const SHIM_CASE: Case = {
  name: 'template functions over the browser stand-ins',
  operation: 'CREATE',
  modrules: `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: stand-ins
spec:
  type: Patch
  match:
    - select: '$.metadata.labels.app'
      matchRegex: '^(?P<name>\\pL+)-\\d+$'
  patch:
    - op: add
      path: /metadata/annotations
      value: |
        sha256: {{ sha256sum .Target.metadata.name | quote }}
        sha1: {{ sha1sum "Grüße 😀" | quote }}
        b64: {{ b64enc .Target.metadata.name | quote }}
        unb64: {{ b64dec "R3LDvMOfZSDwn5iA" | quote }}
        replaced: {{ regexReplaceAll "(?P<w>[a-zö])([a-zöß]*)" .Target.metadata.name "<$w>$2" | quote }}
        split: {{ regexSplit "x*" "a😀xxb" -1 | join "," | quote }}
        found: {{ regexFindAll "[α-ω]+" "alpha αβγ beta δ" -1 | join "," | quote }}
        length: {{ len .Target.metadata.name | quote }}
        hex: {{ printf "%x" .Target.metadata.name | quote }}
`,
  resource: `apiVersion: v1
kind: ConfigMap
metadata:
  name: größe-😀-ωμέγα
  namespace: shop
  labels:
    app: café-42
`,
};

/** The recipes; until there are any, every sample resource against all sample ModRules. */
async function cases(): Promise<Case[]> {
  const recipes: PageRecipe[] = await readRecipes(RECIPES_DIR);
  if (recipes.length > 0) return [...recipes, SHIM_CASE];
  const modrulesDir = join(REPO_ROOT, 'samples/modrules');
  const resourcesDir = join(REPO_ROOT, 'samples/resources');
  const ruleFiles = (await readdir(modrulesDir)).filter((f) => f.endsWith('.yaml')).sort();
  const modrules = (
    await Promise.all(ruleFiles.map((f) => readFile(join(modrulesDir, f), 'utf8')))
  ).join('\n---\n');
  const resources = (await readdir(resourcesDir)).filter((f) => f.endsWith('.yaml')).sort();
  const samples = await Promise.all(
    resources.map(async (file) => ({
      name: `samples/resources/${file}`,
      operation: 'CREATE',
      modrules,
      resource: await readFile(join(resourcesDir, file), 'utf8'),
    })),
  );
  return [...samples, SHIM_CASE];
}

/** The dry-run body the page sends for a case (as the playground builds it). */
function bodyOf(input: Case): Record<string, unknown> {
  // A DELETE carries only the object deleted, as oldResourceManifest (PUT /v1/dryrun refuses both).
  const deleted = input.operation === 'DELETE' && input.old !== undefined;
  return {
    ...(deleted ? {} : { resourceManifest: input.resource }),
    modRules: input.modrules,
    operation: input.operation,
    ...(input.refs === undefined ? {} : { syntheticRefs: load(input.refs) }),
    ...(input.old === undefined ? {} : { oldResourceManifest: input.old }),
    // The playground sends the Cluster objects editor as YAML text.
    ...(input.cluster === undefined ? {} : { cluster: input.cluster }),
  };
}

/** `kubemod-ts dryrun -o json` on the same files, as a separate process. */
async function cliAnswer(input: Case, dir: string): Promise<Record<string, unknown>> {
  const file = async (name: string, text: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
  const args = [
    '--import',
    'tsx',
    'src/cli/main.ts',
    'dryrun',
    '--modrule',
    await file('modrules.yaml', input.modrules),
    // A DELETE with its object given by --old needs no --resource (dryrun refuses both).
    ...(input.operation === 'DELETE' && input.old !== undefined
      ? []
      : ['--resource', await file('resource.yaml', input.resource)]),
    '--operation',
    input.operation,
    '--output',
    'json',
    ...(input.refs === undefined ? [] : ['--refs', await file('refs.yaml', input.refs)]),
    ...(input.old === undefined ? [] : ['--old', await file('old.yaml', input.old)]),
    ...(input.cluster === undefined
      ? []
      : ['--cluster', await file('cluster.yaml', input.cluster)]),
  ];
  const { stdout } = await run(process.execPath, args, { cwd: REPO_ROOT });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** The members both answers carry, in comparable form (the CLI has `patched`, the page YAML). */
function comparable(answer: Record<string, unknown>): Record<string, unknown> {
  const patched =
    typeof answer.patchedYaml === 'string' ? load(answer.patchedYaml) : answer.patched;
  const diff = typeof answer.diff === 'string' ? diffBody(answer.diff) : answer.diff;
  return {
    patch: answer.patch,
    rejections: answer.rejections,
    failures: answer.failures,
    warnings: answer.warnings ?? [],
    patched,
    diff,
  };
}

/** A unified diff without its header lines, which name the object differently. */
function diffBody(diff: string): string {
  return diff
    .split('\n')
    .filter((line) => !/^(Index: |={10,}|--- |\+\+\+ )/.test(line))
    .join('\n');
}

/** A page answer or a CLI answer: one result, or a result per resource. */
function results(answer: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(answer.results) ? (answer.results as Record<string, unknown>[]) : [answer];
}

let browser: Browser;
let page: Page;
let outDir: string;
let workDir: string;
const requests: string[] = [];

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'kubemod-static-page-'));
  workDir = await mkdtemp(join(tmpdir(), 'kubemod-static-cli-'));
  await buildPlaygroundPage(outDir);
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(pathToFileURL(join(outDir, 'index.html')).href, { waitUntil: 'load' });
  await page.waitForFunction(() => 'kubemodPlayground' in window);
});

afterAll(async () => {
  await browser.close();
  await rm(outDir, { recursive: true, force: true });
  await rm(workDir, { recursive: true, force: true });
});

describe('the static playground from file://', () => {
  it('evaluates every example with the same answers as kubemod-ts dryrun', async () => {
    const inputs = await cases();
    expect(inputs.length).toBeGreaterThan(0);
    for (const input of inputs) {
      const inPage = await page.evaluate(
        (body) =>
          (
            window as unknown as {
              kubemodPlayground: {
                evaluate(b: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
              };
            }
          ).kubemodPlayground.evaluate(body),
        bodyOf(input),
      );
      expect(inPage.status, `${input.name}: ${JSON.stringify(inPage.body)}`).toBe(200);
      const cli = await cliAnswer(input, workDir);
      const fromPage = results(inPage.body).map(comparable);
      const fromCli = results(cli).map(comparable);
      expect(fromPage, input.name).toEqual(fromCli);
      if (input === SHIM_CASE) {
        // The stand-ins really ran: the rule applied, none failed.
        expect(fromPage[0]).toMatchObject({ failures: [], patch: [{ op: 'add' }] });
      }
      expect(inPage.body.explain ?? results(inPage.body)[0]?.explain, input.name).toBeDefined();
    }
  }, 300_000);

  it('answers bad input as PUT /v1/dryrun does (status and catalogued error)', async () => {
    const answer = await page.evaluate(
      (body) =>
        (
          window as unknown as {
            kubemodPlayground: { evaluate(b: unknown): Promise<{ status: number; body: unknown }> };
          }
        ).kubemodPlayground.evaluate(body),
      { resourceManifest: 'kind: Pod\n', modRules: 'kind: ModRule\nspec: {type: Patch}\n' },
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: 'KM6002',
      error: expect.stringMatching(/modRules\[0\]/) as unknown,
    });
  });

  it('makes no network request: only the page’s own files, from disk', () => {
    expect(requests.length).toBeGreaterThan(0);
    for (const url of requests) expect(url.startsWith('file://'), url).toBe(true);
  });
});
