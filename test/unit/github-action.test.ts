import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

// Issue 39: the GitHub Action (action.yml) that runs `kubemod-ts test` and annotates failures at
// their file and line. Its test step is scripts/action/run-tests.sh, run here with the CLI from
// source as KUBEMOD_TS, on the failing fixture; the install step (npm, tsc) runs only on GitHub.

const root = join(import.meta.dirname, '..', '..');
const FIXTURE = 'test/fixtures/rule-tests/failing';
const FILE = `${FIXTURE}/kubemod-test.yaml`;

interface Action {
  inputs: Record<string, { default?: string }>;
  runs: { using: string; steps: { run?: string; env?: Record<string, string>; uses?: string }[] };
}

function runStep(env: Record<string, string>): { status: number | null; stdout: string } {
  const run = spawnSync('bash', [join(root, 'scripts/action/run-tests.sh')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 180_000,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      KUBEMOD_TS: `${process.execPath} --import tsx ${join(root, 'src/cli/main.ts')}`,
      ...env,
    },
  });
  return { status: run.status, stdout: run.stdout };
}

function annotations(stdout: string): string[] {
  return stdout.split('\n').filter((line) => line.startsWith('::error '));
}

describe('the kubemod-ts test GitHub Action', () => {
  it('is a composite action whose inputs reach its scripts only as environment variables', () => {
    const action = load(readFileSync(join(root, 'action.yml'), 'utf8')) as Action;
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual([
      'paths',
      'cases',
      'fail-only',
      'junit',
      'version',
      'node-version',
    ]);
    for (const step of action.runs.steps) {
      // No ${{ … }} spliced into a shell command (an input could then run code).
      if (step.run !== undefined) expect(step.run).not.toContain('${{');
      if (step.uses !== undefined) expect(step.uses).toMatch(/@[0-9a-f]{40}$/);
    }
  });

  it('annotates each failing case of the fixture at its file and line, and fails the step', () => {
    const run = runStep({ INPUT_PATHS: FIXTURE });
    expect(run.status).toBe(1);
    expect(
      annotations(run.stdout).map((a) => /^::error file=([^,]*),line=(\d+),/.exec(a)?.slice(1)),
    ).toEqual([
      [FILE, '12'],
      [FILE, '18'],
    ]);
  }, 200_000);

  it('passes cases, fail-only and junit on; several paths, one per line', () => {
    const junit = join(mkdtempSync(join(tmpdir(), 'kubemod-action-')), 'report.xml');
    const run = runStep({
      INPUT_PATHS: `${FIXTURE}\r\n\n${FIXTURE}/kubemod-test.yaml\n`,
      INPUT_CASES: 'the owner*\n',
      INPUT_FAIL_ONLY: 'true',
      INPUT_JUNIT: junit,
    });
    expect(run.status).toBe(0);
    expect(annotations(run.stdout)).toEqual([]);
    expect(run.stdout).not.toContain('PASS');
    // The same file named twice (a directory and its file) runs once.
    expect(run.stdout).toMatch(/\n1 case in 1 file: 1 passed\n$/);
    expect(readFileSync(junit, 'utf8')).toContain(`file="${FILE}" line="6"`);
  }, 200_000);

  it('refuses a fail-only that is neither true nor false, with an annotation', () => {
    const run = runStep({ INPUT_PATHS: FIXTURE, INPUT_FAIL_ONLY: 'yes' });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('::error title=kubemod-ts action::fail-only must be true or false\n');
  });

  it('refuses a version that is neither source nor a version number', () => {
    const env = join(mkdtempSync(join(tmpdir(), 'kubemod-action-')), 'env');
    writeFileSync(env, '');
    const run = spawnSync('bash', [join(root, 'scripts/action/install-cli.sh')], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        ACTION_PATH: root,
        GITHUB_ENV: env,
        KUBEMOD_TS_VERSION: 'latest; rm -rf /',
      },
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toContain('version must be source or a version number');
    expect(readFileSync(env, 'utf8')).toBe('');
  });
});
