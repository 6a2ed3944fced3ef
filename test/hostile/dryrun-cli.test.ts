import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_EXTRA_MS } from './support/bounds.js';
import { runCli, type CliRun } from './support/cli.js';
import {
  aliasBombFlow,
  aliasBombYaml,
  deepArrayJson,
  deepFlowYaml,
  deepObjectJson,
  flatChain,
  manifestJson,
} from './support/generators.js';

// Issue #12, classes 5 and 6 (and 1, 4) for the `dryrun` CLI: an invalid rule or input is one
// line on stderr and exit 1, never a stack trace or an out-of-memory crash; a rule that fails
// while evaluating is reported and the others apply. Each case runs the real CLI in a child
// process with a 256 MB heap.

const rule = (
  name: string,
  select = '$.kind',
  value = '"ok"',
): string => `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: ${name}
  namespace: team
spec:
  type: Patch
  match:
    - select: ${JSON.stringify(select)}
  patch:
    - op: add
      path: /metadata/labels/${name}
      value: ${JSON.stringify(value)}
`;

const RESOURCE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  namespace: team
  labels:
    app: cm
data:
  a: b
`;

const FILES: Record<string, string> = {
  'good.yaml': rule('good'),
  'resource.yaml': RESOURCE,
  'chain.yaml': rule('chain', flatChain(4000)),
  'bomb.yaml': `${rule('bomb')}${aliasBombYaml('bomb')}`,
  'bomb12.yaml': `${rule('bomb')}${aliasBombYaml('bomb', 12, 10)}`,
  'bomb-resource.yaml': `${RESOURCE}${aliasBombYaml('bomb')}`,
  'deep-flow-resource.yaml': `kind: ConfigMap\nmetadata: {name: cm, namespace: team}\nspec: ${deepFlowYaml(100_000)}\n`,
  'deep-json-resource.json': manifestJson(deepArrayJson(200_000)),
  'deep-resource.json': manifestJson(deepObjectJson(5000)),
  'template.yaml': rule(
    'template',
    '$.kind',
    '{{ $s := repeat 1048576 "x" }}{{ range until 10000 }}{{ $_ := sha256sum $s }}{{ end }}done',
  ),
  'doubling.yaml': rule(
    'doubling',
    '$.kind',
    `{{ $x := list "aaaaaaaaaaaaaaaa" }}{{ range until 64 }}{{ $x = concat $x $x }}{{ end }}{{ len $x }}`,
  ),
  'bomb-value.yaml': rule('bomb-value', '$.kind', aliasBombFlow()),
  'big-resource.json': JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm', namespace: 'team' },
    data: Object.fromEntries(
      Array.from({ length: 20_000 }, (_, i) => [`k${String(i)}`, 'v'.repeat(50)]),
    ),
  }),
};

let dir: string;
let baselineMs = 0;
const path = (name: string): string => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubemod-hostile-cli-'));
  for (const [name, text] of Object.entries(FILES)) await writeFile(path(name), text);
  const baseline = await runCli([
    'dryrun',
    '--modrule',
    path('good.yaml'),
    '--resource',
    path('resource.yaml'),
  ]);
  expect(baseline.code, baseline.stderr).toBe(0);
  baselineMs = baseline.wallMs;
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function expectCleanExit(run: CliRun, code: number): void {
  expect(run.signal, `killed: ${run.stderr.slice(-500)}`).toBeNull();
  expect(run.stderr).not.toMatch(/heap out of memory|Maximum call stack|RangeError|\n\s+at /);
  expect(run.code, run.stderr.slice(0, 1000)).toBe(code);
  expect(run.wallMs, 'the CLI took much longer than a normal run').toBeLessThan(
    baselineMs * 1.5 + CLI_EXTRA_MS,
  );
}

function expectOneLineError(run: CliRun, ...mentions: string[]): void {
  expectCleanExit(run, 1);
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines, run.stderr.slice(0, 1000)).toHaveLength(1);
  expect(run.stderr.length).toBeLessThan(2000);
  for (const mention of mentions) expect(run.stderr).toContain(mention);
}

const dryrun = (modrule: string, resource = 'resource.yaml', ...extra: string[]): Promise<CliRun> =>
  runCli(['dryrun', '--modrule', path(modrule), '--resource', path(resource), ...extra]);

describe('kubemod-ts dryrun on hostile inputs', () => {
  it('output into a pipe closed early (`| head`): exit 141 as a Unix tool, no stack trace', async () => {
    const run = await runCli(
      ['dryrun', '--modrule', path('good.yaml'), '--resource', path('big-resource.json')],
      30_000,
      { closeStdoutAfterFirstChunk: true },
    );
    expectCleanExit(run, 141);
    expect(run.stderr).toBe('');
  });

  it('a 4,000-term select: one line naming the field, exit 1', async () => {
    expectOneLineError(await dryrun('chain.yaml'), 'chain.yaml', 'spec.match[0].select');
  }, 60_000);

  it('an alias bomb in the rules file: one line, exit 1, no OOM', async () => {
    expectOneLineError(await dryrun('bomb.yaml'), 'bomb.yaml');
  }, 60_000);

  it('an alias bomb of 10^12 leaves in the rules file: one line, exit 1, no OOM', async () => {
    expectOneLineError(await dryrun('bomb12.yaml'), 'bomb12.yaml');
  }, 60_000);

  it('an alias bomb in the --resource file: one line, exit 1, no OOM', async () => {
    expectOneLineError(await dryrun('good.yaml', 'bomb-resource.yaml'), 'bomb-resource.yaml');
  }, 60_000);

  it('a resource nested 100,000 flow sequences deep: one line, exit 1', async () => {
    expectOneLineError(
      await dryrun('good.yaml', 'deep-flow-resource.yaml'),
      'deep-flow-resource.yaml',
    );
  }, 60_000);

  it('a JSON resource nested 200,000 deep: one line, exit 1', async () => {
    expectOneLineError(
      await dryrun('good.yaml', 'deep-json-resource.json'),
      'deep-json-resource.json',
    );
  }, 60_000);

  it('a resource nested 5,000 deep with -o diff and -o json: answered or one line, fast', async () => {
    for (const output of ['diff', 'json', 'yaml']) {
      const run = await dryrun('good.yaml', 'deep-resource.json', '-o', output);
      if (run.code === 0) {
        expectCleanExit(run, 0);
        expect(run.stdout.length).toBeLessThan(8 * 1024 * 1024);
      } else {
        expectOneLineError(run);
      }
    }
  }, 90_000);

  it.each([
    ['thousands of sha256sum over 1 MB', 'template.yaml', 'team/template'],
    ['concat doubling', 'doubling.yaml', 'team/doubling'],
    ['an alias bomb patch value', 'bomb-value.yaml', 'team/bomb-value'],
  ])(
    '%s: the rule fails on stderr, the good rule applies, exit 0',
    async (_name, file, ruleKey) => {
      const run = await runCli([
        'dryrun',
        '--modrule',
        path(file),
        '--modrule',
        path('good.yaml'),
        '--resource',
        path('resource.yaml'),
        '-o',
        'json',
      ]);
      if (run.code === 1 && file === 'bomb-value.yaml') {
        expectOneLineError(run, 'spec.patch[0].value'); // refused when loading: also fine
        return;
      }
      expectCleanExit(run, 0);
      const out = JSON.parse(run.stdout) as { patch: unknown[] };
      expect(out.patch).toEqual([{ op: 'add', path: '/metadata/labels/good', value: 'ok' }]);
      expect(run.stderr).toContain(ruleKey);
      expect(run.stderr.length).toBeLessThan(2000);
    },
    60_000,
  );
});
