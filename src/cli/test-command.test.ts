import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from './main.js';
import { runTest } from './test-command.js';
import type { JsonReport } from './rule-tests/report-json.js';
import { childElements, parseXml, textOf } from './rule-tests/xml.test-support.js';

const root = join(import.meta.dirname, '..', '..');
const samples = join(root, 'samples');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `kubemod-ts test` in-process; every case takes 2 ms on the injected clock. */
function test(argv: string[]): Run {
  let stdout = '';
  let stderr = '';
  let now = 0;
  const code = runTest(
    argv,
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} },
    () => (now += 1),
  );
  return { code, stdout, stderr };
}

/** A copy of samples/ to break, without the recipes (test/unit/samples/recipes.test.ts). */
function samplesCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubemod-samples-'));
  cpSync(samples, dir, { recursive: true, filter: (src) => !src.includes('/recipes') });
  return dir;
}

const SAMPLE_CASES = [
  'the sample Deployment gets an owner label, a pod annotation, runAsNonRoot and the log shipper',
  'without a team label the owner is platform, and without the annotation no log shipper',
  'a Deployment the rules already patched passes through unchanged',
  'an untagged image is rejected',
  'an image tagged latest is rejected on update too',
  'in another namespace only the cluster-wide rule applies',
  'deleting an unpinned Deployment is neither patched nor rejected',
  'other kinds are left alone',
];
const COST_CENTER_CASES = [
  "a Pod gets its namespace's cost-center label, as a string",
  'a namespace without the label leaves Pods alone',
  'the injected namespace never leaks into the stored object',
];

describe('kubemod-ts test on samples/', () => {
  it('prints what the README shows', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const copy = samplesCopy(); // the two sample files, as the README runs them by name
    const run = test([copy]);
    expect(run.code).toBe(0);
    const asInReadme = run.stdout.replaceAll(`${copy}/`, 'samples/').trimEnd();
    const command = 'test samples/cost-center.kubemod-test.yaml samples/kubemod-test.yaml';
    expect(readme).toContain(`$ npx tsx src/cli/main.ts ${command}\n${asInReadme}\n\`\`\``);
    const dir = samplesCopy();
    const rule = join(dir, 'modrules', 'deployment-owner.yaml');
    writeFileSync(rule, readFileSync(rule, 'utf8').replace('default "platform"', 'default "ops"'));
    const failing = test([dir]).stdout.replaceAll(`${dir}/`, 'samples/').split('\n');
    const start = failing.findIndex((line) => line.startsWith('  FAIL '));
    const block = failing.slice(start, failing.indexOf('            spec:', start) + 1);
    // The case line, where the case is (file:line), the problem and its diff.
    expect(block).toHaveLength(12);
    expect(block[1]).toBe('         at samples/kubemod-test.yaml:35');
    expect(readme).toContain(`\`\`\`\n${block.join('\n')}\n\`\`\``);
  });

  it('runs every sample test file, one line per case, and passes (exit 0)', async () => {
    let stdout = '';
    let stderr = '';
    const dir = samplesCopy(); // the recipes: test/unit/samples/recipes.test.ts
    const code = await main(['test', dir], {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      env: {},
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        join(dir, 'cost-center.kubemod-test.yaml'),
        ...COST_CENTER_CASES.map((c) => `  PASS   ${c}`),
        join(dir, 'kubemod-test.yaml'),
        ...SAMPLE_CASES.map((c) => `  PASS   ${c}`),
        '',
        '11 cases in 2 files: 11 passed',
        '',
      ].join('\n'),
    );
  });

  it('fails (exit 1) with a diff when a sample rule changes', () => {
    const dir = samplesCopy();
    const rule = join(dir, 'modrules', 'deployment-owner.yaml');
    writeFileSync(rule, readFileSync(rule, 'utf8').replace('default "platform"', 'default "ops"'));
    const run = test([join(dir, 'kubemod-test.yaml')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(
      [
        '  FAIL   without a team label the owner is platform, and without the annotation no log shipper',
        `         at ${join(dir, 'kubemod-test.yaml')}:35`,
        '         expect.patched: the patched object is not the one expected (- expected, + actual)',
        '           @@ -2,7 +2,7 @@',
        '            kind: Deployment',
        '            metadata:',
        '              labels:',
        '           -    owner: platform',
        '           +    owner: ops',
        '              name: api',
        '              namespace: default',
        '            spec:',
      ].join('\n'),
    );
    expect(run.stdout).toMatch(/\n8 cases in 1 file: 7 passed, 1 failed\n$/);
  });
});

describe('kubemod-ts test: discovery', () => {
  it('finds kubemod-test.yaml and *.kubemod-test.y(a)ml recursively, skipping node_modules and hidden directories', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemod-discover-'));
    const valid = readFileSync(join(samples, 'cost-center.kubemod-test.yaml'), 'utf8');
    for (const path of [
      'kubemod-test.yaml',
      'a/b/c/x.kubemod-test.yml',
      'a/kubemod-test.yml',
      'node_modules/pkg/kubemod-test.yaml',
      '.git/kubemod-test.yaml',
      'a/not-a-test.yaml',
      'a/kubemod-test.yaml.bak',
    ]) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), valid);
    }
    const run = test([dir, join(dir, 'a', 'not-a-test.yaml'), join(dir, 'kubemod-test.yaml')]);
    expect(run.code).toBe(0);
    const files = run.stdout.split('\n').filter((line) => line.startsWith(dir));
    expect(files).toEqual([
      join(dir, 'a/b/c/x.kubemod-test.yml'),
      join(dir, 'a/kubemod-test.yml'),
      join(dir, 'kubemod-test.yaml'),
      join(dir, 'a/not-a-test.yaml'),
    ]);
  });

  it('is a usage error (exit 2) to name a missing path or a directory without test files', () => {
    const empty = mkdtempSync(join(tmpdir(), 'kubemod-empty-'));
    expect(test([join(empty, 'nope')])).toEqual({
      code: 2,
      stdout: '',
      stderr: `kubemod-ts test: ${join(empty, 'nope')}: cannot read: ENOENT\n`,
    });
    expect(test([empty])).toEqual({
      code: 2,
      stdout: '',
      stderr: `kubemod-ts test: no test files in ${empty} (test files are named kubemod-test.yaml or kubemod-test.yml, or end in .kubemod-test.yaml)\n`,
    });
  });

  it('is a usage error (exit 2) to give an unknown option or output format', () => {
    expect(test(['--output', 'xml', samples])).toMatchObject({
      code: 2,
      stderr: 'kubemod-ts test: --output: must be text, junit, json, github, got xml\n',
    });
    expect(test(['--bogus']).code).toBe(2);
    expect(test(['--rule-work-units', 'lots']).code).toBe(2);
    expect(test(['--help'])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('Usage: kubemod-ts test') as unknown,
    });
  });
});

describe('kubemod-ts test: invalid test files', () => {
  it('runs the valid files, reports the invalid one on stderr and exits 2', () => {
    const dir = samplesCopy();
    const bad = join(dir, 'bad.kubemod-test.yaml');
    writeFileSync(
      bad,
      'rules: [modrules/]\ncases:\n  - name: x\n    resource: resources/deployment.yaml\n    expect: { patch: [{ op: move, path: /a }] }\n',
    );
    const run = test([dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `${bad}: case "x": expect.patch[0].op: unknown op "move"; must be one of add, replace, remove\n`,
    );
    expect(run.stdout).toContain(`${bad}\n  INVALID  not run (its errors are on stderr)\n`);
    expect(run.stdout).toMatch(
      /\n11 cases in 3 files: 11 passed; 1 invalid test file \(not run\)\n$/,
    );
  });
});

describe('kubemod-ts test --output junit', () => {
  it('writes well-formed JUnit XML whose counts, names and failure texts match the run', () => {
    const dir = samplesCopy();
    const rule = join(dir, 'modrules', 'deployment-owner.yaml');
    writeFileSync(rule, readFileSync(rule, 'utf8').replace('default "platform"', 'default "ops"'));
    const tricky = join(dir, 'tricky.kubemod-test.yaml');
    writeFileSync(
      tricky,
      readFileSync(join(dir, 'cost-center.kubemod-test.yaml'), 'utf8').replace(
        "  - name: a Pod gets its namespace's cost-center label, as a string",
        `  - name: "a <Pod> & \\"its\\" \\a gets its namespace's cost-center label, as a string"`,
      ),
    );
    writeFileSync(join(dir, 'broken.kubemod-test.yaml'), 'rules: []\ncases: []\n');
    const run = test(['-o', 'junit', dir]);
    expect(run.code).toBe(2);
    const xml = parseXml(run.stdout);
    expect(xml.name).toBe('testsuites');
    const suites = childElements(xml, 'testsuite');
    expect(suites.map((s) => relative(dir, s.attributes.name ?? ''))).toEqual([
      'broken.kubemod-test.yaml',
      'cost-center.kubemod-test.yaml',
      'kubemod-test.yaml',
      'tricky.kubemod-test.yaml',
    ]);
    let tests = 0;
    let failures = 0;
    let errors = 0;
    for (const suite of suites) {
      const cases = childElements(suite, 'testcase');
      expect(Number(suite.attributes.tests)).toBe(cases.length);
      const failed = cases.filter((c) => childElements(c, 'failure').length === 1);
      const errored = cases.filter((c) => childElements(c, 'error').length === 1);
      expect(Number(suite.attributes.failures)).toBe(failed.length);
      expect(Number(suite.attributes.errors)).toBe(errored.length);
      for (const c of cases) {
        expect(c.attributes.classname).toBe(suite.attributes.name);
        expect(c.attributes.time).toMatch(/^\d+\.\d{3}$/);
      }
      tests += cases.length;
      failures += failed.length;
      errors += errored.length;
    }
    expect([xml.attributes.tests, xml.attributes.failures, xml.attributes.errors]).toEqual([
      String(tests),
      String(failures),
      String(errors),
    ]);
    expect([tests, failures, errors]).toEqual([15, 1, 1]);

    const [broken, , samplesSuite, trickySuite] = suites;
    const load = broken === undefined ? undefined : childElements(broken, 'testcase')[0];
    const loadError = load === undefined ? undefined : childElements(load, 'error')[0];
    expect(loadError?.attributes.message).toBe(
      `${join(dir, 'broken.kubemod-test.yaml')}: rules: must list at least one ModRule file, directory or inline ModRule`,
    );
    const failing = childElements(samplesSuite ?? xml, 'testcase').find(
      (c) => childElements(c, 'failure').length > 0,
    );
    expect(failing?.attributes.name).toBe(SAMPLE_CASES[1]);
    const failure = failing === undefined ? undefined : childElements(failing, 'failure')[0];
    expect(failure?.attributes.message).toBe(
      'expect.patched: the patched object is not the one expected (- expected, + actual)',
    );
    expect(failure === undefined ? '' : textOf(failure)).toContain(
      '-    owner: platform\n+    owner: ops\n',
    );
    const names = childElements(trickySuite ?? xml, 'testcase').map((c) => c.attributes.name);
    expect(names[0]).toBe(
      'a <Pod> & "its" \uFFFD gets its namespace\'s cost-center label, as a string',
    );
  });
});

describe('kubemod-ts test --output json', () => {
  it('prints one versioned JSON report', () => {
    const run = test(['--output', 'json', samplesCopy()]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.version).toBe(1);
    expect(report.summary).toEqual({
      files: 2,
      invalidFiles: 0,
      cases: 11,
      passed: 11,
      failed: 0,
      errors: 0,
      durationMs: 24,
    });
    expect(report.files.map((f) => [f.valid, f.cases.length])).toEqual([
      [true, 3],
      [true, 8],
    ]);
    expect(report.files[1]?.cases[0]).toEqual({
      name: SAMPLE_CASES[0],
      line: 5,
      status: 'pass',
      durationMs: 1,
      problems: [],
    });
  });
});
