import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { createDirectoryRuleSource, loadRuleDirectory } from '../../src/rules/directory-source.js';
import { CASE_TIMEOUT_MS, PROMPT_MS } from './support/bounds.js';
import {
  aliasBombFlow,
  aliasBombYaml,
  deepBlockYaml,
  deepFlowYaml,
  flatChain,
  manifestJson,
} from './support/generators.js';
import { sendRequest, type Target } from './support/http.js';
import { measure } from './support/measure.js';
import { runServeInProcess } from '../unit/webhook/serve-in-process.js';
import {
  admissionAnswer,
  dryrunJson,
  expectBounded,
  modRule,
  PATHS,
  patchOf,
  reviewJson,
  validateReviewJson,
} from './support/server.js';

// Issue #12, classes 5 and 6 for `serve`: a rules directory holding a 4,000-term select, YAML
// alias bombs or absurdly deep YAML reports each bad file and keeps loading the others, fast and
// in little memory; a half-written file keeps its last good rules.

const rule = (
  name: string,
  select = '$.kind',
  extra = '',
): string => `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: ${name}
  namespace: team
${extra}spec:
  type: Patch
  match:
    - select: ${JSON.stringify(select)}
  patch:
    - op: add
      path: /metadata/labels/${name}
      value: '"ok"'
`;

const HOSTILE_FILES: Record<string, string> = {
  'chain.yaml': rule('chain', flatChain(4000)),
  'chain-deep-parens.yaml': rule('parens', `${'('.repeat(4000)}1${')'.repeat(4000)}`),
  'bomb.yaml': `${rule('bomb')}${aliasBombYaml('bomb')}`,
  'bomb-in-spec.yaml': rule('bomb-spec').replace(
    'spec:\n',
    `spec:\n${aliasBombYaml('extra', 9, 10, 2)}`,
  ),
  'bomb-document.yaml': aliasBombYaml('root', 12, 10),
  'bomb-in-value.yaml': rule('bomb-value').replace(
    `value: '"ok"'`,
    `value: ${JSON.stringify(aliasBombFlow())}`,
  ),
  'deep-flow.yaml': deepFlowYaml(100_000),
  'deep-block.yaml': deepBlockYaml(2000),
  'deep-in-rule.json': `{"apiVersion":"api.kubemod.io/v1beta1","kind":"ModRule","metadata":{"name":"deep","namespace":"team"},"spec":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
};

/** Files that must load: ordinary anchors are fine. */
const GOOD_FILES: Record<string, string> = {
  'good.yaml': rule('good'),
  'anchors.yaml': `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: anchors, namespace: team }
spec:
  type: Patch
  match:
    - &m
      select: '$.kind'
      matchValue: ConfigMap
    - *m
  patch:
    - op: add
      path: /metadata/labels/anchors
      value: &v '"ok"'
    - op: add
      path: /metadata/labels/anchors-2
      value: *v
`,
};

/** Files whose error must name the failing field. */
const FIELD_OF: Record<string, string> = {
  'chain.yaml': 'spec.match[0].select',
  'chain-deep-parens.yaml': 'spec.match[0].select',
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubemod-hostile-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeAll(files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}

describe('loadRuleDirectory (serve) on hostile rule files', () => {
  it(
    'reports each hostile file, loads the good ones, in bounded time and memory',
    async () => {
      await writeAll({ ...HOSTILE_FILES, ...GOOD_FILES });
      const measured = await measure(() =>
        loadRuleDirectory(dir, { clusterNamespace: 'kubemod-system' }),
      );
      expectBounded(measured, 'loading the rules directory');
      const load = measured.value;
      const keys = load.store.all().map((r) => r.key);
      expect(keys).toEqual(expect.arrayContaining(['team/good', 'team/anchors']));
      for (const name of Object.keys(HOSTILE_FILES)) {
        if (name === 'bomb-in-value.yaml') continue; // may load; it must then fail when applied
        const errors = load.errors.filter((e) => e.startsWith(join(dir, name)));
        expect(errors, `no error for ${name}`).toHaveLength(1);
        const error = errors[0] ?? '';
        expect(error.length, `error for ${name} is not one short line`).toBeLessThan(2000);
        expect(error).not.toContain('\n');
        expect(error).not.toMatch(/Maximum call stack|RangeError|\n\s+at /);
        const field = FIELD_OF[name];
        if (field !== undefined) expect(error).toContain(field);
      }
      expect(keys.some((k) => /chain|parens|bomb-spec|deep/.test(k))).toBe(false);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'an alias bomb 12 levels deep (10^12 leaves) is refused as fast as a small one',
    async () => {
      await writeFile(join(dir, 'bomb.yaml'), `${rule('bomb')}${aliasBombYaml('bomb', 12, 10)}`);
      await writeFile(join(dir, 'good.yaml'), rule('good'));
      const measured = await measure(() =>
        loadRuleDirectory(dir, { clusterNamespace: 'kubemod-system' }),
      );
      expectBounded(measured, 'loading the rules directory');
      expect(measured.value.store.all().map((r) => r.key)).toEqual(['team/good']);
      expect(measured.value.errors).toHaveLength(1);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('the directory rule source keeps a file’s last good rules', () => {
  it(
    'while the file is half-written, and logs the error',
    async () => {
      const lines: string[] = [];
      const logger = createLogger({
        level: 'info',
        destination: { write: (line: string) => lines.push(line) },
      });
      await writeFile(join(dir, 'rules.yaml'), `${rule('one')}---\n${rule('two')}`);
      const source = createDirectoryRuleSource({
        dir,
        clusterNamespace: 'kubemod-system',
        logger,
        debounceMs: 10_000,
      });
      try {
        await source.start();
        expect(
          source
            .store()
            .all()
            .map((r) => r.key)
            .sort(),
        ).toEqual(['team/one', 'team/two']);
        const full = `${rule('one')}---\n${rule('two')}`;
        // Caught mid-write: the second document stops inside a quoted string.
        await writeFile(join(dir, 'rules.yaml'), full.slice(0, full.lastIndexOf('"ok"') + 2));
        await source.reload();
        expect(
          source
            .store()
            .all()
            .map((r) => r.key)
            .sort(),
        ).toEqual(['team/one', 'team/two']);
        expect(lines.join('')).toContain('rules.yaml');
        await writeFile(join(dir, 'rules.yaml'), rule('three'));
        await source.reload();
        expect(
          source
            .store()
            .all()
            .map((r) => r.key),
        ).toEqual(['team/three']);
      } finally {
        source.close();
      }
    },
    CASE_TIMEOUT_MS,
  );
});

describe('kubemod-ts serve with a hostile rules directory', () => {
  it(
    'starts, serves the good rules, and answers hostile requests on every route',
    async () => {
      await writeAll({ ...HOSTILE_FILES, ...GOOD_FILES });
      const serve = await runServeInProcess(dir);
      const started = serve.server;
      const target: Target = { port: started.port, ca: undefined };
      try {
        const object = manifestJson('{}');
        const normal = await sendRequest(target, 'POST', PATHS.dragnet, reviewJson(object));
        expect(normal.status).toBe(200);
        const paths = patchOf(admissionAnswer(normal)).map((op) => op.path);
        expect(paths).toEqual(
          expect.arrayContaining(['/metadata/labels/good', '/metadata/labels/anchors']),
        );

        const chain = modRule('chain', {
          type: 'Patch',
          match: [{ select: flatChain(4000) }],
          patch: [{ op: 'add', path: '/metadata/labels/x', value: '"y"' }],
        });
        const dryrun = await measure(() =>
          sendRequest(target, 'PUT', PATHS.dryrun, dryrunJson(object, [chain])),
        );
        expectBounded(dryrun);
        expect(dryrun.value.status).toBe(400);
        expect(dryrun.value.text).toContain('spec.match[0].select');

        const validate = await measure(() =>
          sendRequest(target, 'POST', PATHS.validate, validateReviewJson(chain)),
        );
        expectBounded(validate);
        expect(validate.value.status).toBe(200);
        expect(admissionAnswer(validate.value).status?.message).toContain('spec.match[0].select');

        const t0 = performance.now();
        const again = await sendRequest(target, 'POST', PATHS.dragnet, reviewJson(object));
        expect(again.status).toBe(200);
        expect(performance.now() - t0).toBeLessThan(PROMPT_MS);
        expect(serve.exitCode()).toBeUndefined();
        expect(serve.output()).toContain('chain.yaml');
      } finally {
        serve.stop();
      }
    },
    CASE_TIMEOUT_MS,
  );
});
