import { mkdtempSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/hostile/support/cli.js';
import { runTest } from './test-command.js';
import type { JsonReport } from './rule-tests/report-json.js';
import { data, property } from './rule-tests/report-github.js';

// Issue 39: what `kyverno test` users expect of `kubemod-ts test`: -t/--case, --fail-only, where
// a failing case is (file:line) in every report, and --output github for a GitHub Actions step.

const root = join(import.meta.dirname, '..', '..');
/** The fixture as the CLI names it when run from the repository root. */
const FIXTURE = 'test/fixtures/rule-tests/failing';
const FILE = `${FIXTURE}/kubemod-test.yaml`;

function test(argv: string[]): { code: number; stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const code = runTest(
    argv.map((a) => (a.startsWith(FIXTURE) ? join(root, a) : a)),
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} },
    () => 0,
  );
  const rel = (text: string): string => text.replaceAll(`${root}/`, '');
  return { code, stdout: rel(stdout), stderr: rel(stderr) };
}

const PASSING = 'the owner label is added';
const WRONG = 'wrong owner expected';
const NO_RULE = 'expects a rejection no rule makes';

describe('kubemod-ts test: selecting cases and showing failures', () => {
  it.each<[string, string[], number, readonly string[], readonly string[]]>([
    ['every case by default', [], 1, [PASSING, WRONG, NO_RULE], []],
    ['--fail-only hides the passing case', ['--fail-only'], 1, [WRONG, NO_RULE], [PASSING]],
    ['-t runs one case by its exact name', ['-t', PASSING], 0, [PASSING], [WRONG, NO_RULE]],
    ['--case takes wildcards', ['--case', '*owner*'], 1, [PASSING, WRONG], [NO_RULE]],
    ['--case is repeatable', ['-t', WRONG, '-t', 'expects*'], 1, [WRONG, NO_RULE], [PASSING]],
    ['--fail-only of passing cases prints no file', ['-t', PASSING, '--fail-only'], 0, [], [FILE]],
  ])('%s', (_what, flags, code, shown, hidden) => {
    const run = test([FIXTURE, ...flags]);
    expect(run.code, run.stderr).toBe(code);
    for (const name of shown) expect(run.stdout).toContain(name);
    for (const name of hidden) expect(run.stdout).not.toContain(name);
  });

  it('summarises only the selected cases, even with --fail-only', () => {
    expect(test([FIXTURE, '-t', '*owner*', '--fail-only']).stdout).toMatch(
      /\n2 cases in 1 file: 1 passed, 1 failed\n$/,
    );
  });

  it('refuses a selection that matches nothing (a CI run would prove nothing)', () => {
    const run = test([FIXTURE, '-t', 'no such case']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'kubemod-ts test: no case matches --case "no such case" in 1 test file(s)\n',
    );
    expect(test([FIXTURE, '-t', '']).stderr).toContain('--case: a pattern cannot be empty');
  });

  it('names the file and line of each failing case in the text report', () => {
    const lines = test([FIXTURE]).stdout.split('\n');
    expect(lines.slice(2, 4)).toEqual([`  FAIL   ${WRONG}`, `         at ${FILE}:12`]);
    expect(lines).toContain(`         at ${FILE}:18`);
    expect(lines.filter((l) => l.includes(' at '))).toHaveLength(2);
  });

  it('gives every JUnit testcase its file and line, and a failure its location', () => {
    const xml = test([FIXTURE, '-o', 'junit']).stdout;
    expect(xml).toContain(
      `<testcase name="${PASSING}" classname="${FILE}" file="${FILE}" line="6"`,
    );
    expect(xml).toContain(`<testcase name="${WRONG}" classname="${FILE}" file="${FILE}" line="12"`);
    expect(xml).toMatch(
      /<failure message="expect\.patch: [^"]*" type="expect\.patch">at test\/fixtures\/rule-tests\/failing\/kubemod-test\.yaml:12\n/,
    );
  });

  it('gives every JSON case its line', () => {
    const report = JSON.parse(test([FIXTURE, '-o', 'json']).stdout) as JsonReport;
    expect(report.files[0]?.cases.map((c) => [c.name, c.line])).toEqual([
      [PASSING, 6],
      [WRONG, 12],
      [NO_RULE, 18],
    ]);
  });
});

describe('kubemod-ts test --output github', () => {
  it('annotates each failing case at its file and line (the CLI in its own process)', async () => {
    const run = await runCli(['test', FIXTURE, '--output', 'github'], 120_000);
    expect(run.code, run.stderr).toBe(1);
    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(annotations).toEqual([
      `::error file=${FILE},line=12,title=kubemod-ts test%3A case "${WRONG}" failed::expect.patch: the patch is not the one expected (- expected, + actual)%0A@@ -1,3 +1,3 @@%0A - op: add%0A   path: /metadata/labels/owner%0A-  value: 'billing, ops: 100%25'%0A+  value: shop`,
      `::error file=${FILE},line=18,title=kubemod-ts test%3A case "${NO_RULE}" failed::expect.rejections: the rejections are not the ones expected (- expected, + actual)%0A@@ -1,1 +1,1 @@%0A-- 'default/no-latest: "no :latest images"'%0A+[]`,
    ]);
    // The text report comes first, with commands stopped around it; the summary last.
    const lines = run.stdout.split('\n');
    const token = /^::stop-commands::([0-9a-f]{64})$/.exec(lines[0] ?? '')?.[1];
    expect(token).toBeDefined();
    expect(lines.indexOf(`::${token ?? ''}::`)).toBeLessThan(lines.indexOf(annotations[0] ?? ''));
    expect(run.stdout).toMatch(/\n3 cases in 1 file: 1 passed, 2 failed\n$/);
  }, 180_000);

  it('annotates an invalid test file without a line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemod-github-'));
    writeFileSync(join(dir, 'kubemod-test.yaml'), 'rules: []\ncases: []\nextra: 1\n');
    const run = test([dir, '-o', 'github']);
    expect(run.code).toBe(2);
    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(annotations.length).toBeGreaterThan(0);
    expect(annotations[0]).toMatch(
      /^::error file=[^,]*kubemod-test\.yaml,title=invalid test file::/,
    );
  });

  it('escapes what a test file says, so it cannot issue commands of its own', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemod-github-'));
    cpSync(join(root, FIXTURE), dir, { recursive: true });
    // A case name is one line; a value in the test file (and so in its diff) may hold any.
    const hostile = 'x\n::add-mask::secret\r\n::set-env name=A::b';
    writeFileSync(
      join(dir, 'kubemod-test.yaml'),
      `rules: [modrules.yaml]\ncases:\n  - name: "a, b: 100%"\n    resource: pod.yaml\n    expect:\n      patch: [{op: add, path: /metadata/labels/owner, value: ${JSON.stringify(hostile)}}]\n`,
    );
    const run = test([dir, '-o', 'github']);
    const lines = run.stdout.split('\n');
    const token = /^::stop-commands::(\w+)$/.exec(lines[0] ?? '')?.[1] ?? '';
    const end = lines.indexOf(`::${token}::`);
    // Outside the stopped region, every line is ours: an ::error line, a blank or the summary.
    const outside = lines.slice(end + 1).filter((l) => l !== '');
    expect(outside.map((l) => l.slice(0, 8))).toEqual(['::error ', '1 case i']);
    expect(outside[0]).toContain(`,title=kubemod-ts test%3A case "a%2C b%3A 100%25" failed::`);
    expect(outside[0]).toContain('::add-mask::secret');
    expect(outside[0]).not.toMatch(/[\r\n]/);
    // The stopped region holds the hostile lines; the runner reads no command there.
    expect(lines.slice(1, end).some((l) => l.trim().startsWith('::add-mask::'))).toBe(false);
  });

  it.each([
    ['50%\r\nx', '50%25%0D%0Ax', '50%25%0D%0Ax'],
    ['a:b,c', 'a:b,c', 'a%3Ab%2Cc'],
  ])('escapes %j as data %j and as a property %j', (raw, asData, asProperty) => {
    expect(data(raw)).toBe(asData);
    expect(property(raw)).toBe(asProperty);
  });
});
