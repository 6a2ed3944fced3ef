import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExplainDocument } from '../engine/explain/index.js';
import { main } from './main.js';

const root = join(import.meta.dirname, '..', '..');
const sample = [
  '--modrule',
  join(root, 'samples', 'modrules'),
  '--resource',
  join(root, 'samples', 'resources', 'deployment-latest.yaml'),
];

// eslint-disable-next-line no-control-regex -- ANSI escape sequences
const ANSI = /\u001b\[[0-9;]*m/g;

async function run(
  argv: string[],
  terminal: { tty?: boolean; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: terminal.env ?? {},
    stdoutIsTty: terminal.tty ?? false,
    // A clock that stands still: the work meter's time backstops must not make two runs differ
    // on a loaded machine (work units are still counted and limited).
    clock: () => 0,
  });
  return { code, stdout, stderr };
}

describe('kubemod-ts dryrun --explain', () => {
  it('prints a plain tree when piped: every rule, its items, operations and rejection', async () => {
    const { code, stdout, stderr } = await run(['dryrun', ...sample, '--explain']);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(ANSI);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      '⊘ CREATE Deployment default/unpinned: 4 rules (4 candidates, 0 skipped): 2 applied, 1 rejected, 1 not matched, 0 failed; 3 patch operations',
    );
    // Within a tier, cluster-wide rules run before the namespace's own.
    expect(stdout).toContain(
      '├─ ✓ kubemod-system/run-as-non-root · Patch · tier 0 · step 1: applied',
    );
    expect(stdout).toContain('├─ ✓ default/deployment-owner · Patch · tier 0 · step 2: applied');
    expect(stdout).toContain(
      '│  ├─ ✓ spec.match[1] $.spec.template.spec.securityContext.runAsNonRoot (negate): got undefined → matched (negated from no match)',
    );
    expect(stdout).toContain('✗ default/log-shipper-sidecar · Patch · tier 10: not matched');
    expect(stdout).toContain('⊘ default/reject-latest-images · Reject · tier 0: rejected');
    expect(stdout).toContain(
      'rejects the request: default/reject-latest-images: "Deployment unpinned uses an image without a pinned tag"',
    );
    // Rejections still go to stderr as without --explain.
    expect(stderr).toContain('rejected: operation rejected by the following ModRule(s)');
  });

  it('colours the tree on a terminal; the text is the same without the colours', async () => {
    const piped = await run(['dryrun', ...sample, '--explain']);
    const tty = await run(['dryrun', ...sample, '--explain'], { tty: true });
    expect(tty.stdout).toContain('\u001b[32m✓ kubemod-system/run-as-non-root');
    expect(tty.stdout).toContain('\u001b[31m⊘ default/reject-latest-images');
    expect(tty.stdout.replace(ANSI, '')).toBe(piped.stdout);
  });

  it('honours NO_COLOR and --color', async () => {
    const noColor = await run(['dryrun', ...sample, '--explain'], {
      tty: true,
      env: { NO_COLOR: '1' },
    });
    expect(noColor.stdout).not.toMatch(ANSI);
    const emptyNoColor = await run(['dryrun', ...sample, '--explain'], {
      tty: true,
      env: { NO_COLOR: '' },
    });
    expect(emptyNoColor.stdout).toMatch(ANSI);
    const always = await run(['dryrun', ...sample, '--explain', '--color', 'always']);
    expect(always.stdout).toMatch(ANSI);
    const never = await run(['dryrun', ...sample, '--explain', '--color', 'never'], { tty: true });
    expect(never.stdout).not.toMatch(ANSI);
    const bad = await run(['dryrun', ...sample, '--explain', '--color', 'sometimes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--color: must be auto, always or never, got sometimes');
  });

  it('-o json adds a versioned explain member and leaves the rest of the answer as it was', async () => {
    const plain = await run(['dryrun', ...sample, '-o', 'json']);
    const explained = await run(['dryrun', ...sample, '-o', 'json', '--explain']);
    expect(explained.code).toBe(0);
    const { explain, ...rest } = JSON.parse(explained.stdout) as {
      explain: ExplainDocument;
    } & Record<string, unknown>;
    expect(rest).toEqual(JSON.parse(plain.stdout));
    expect(Object.keys(JSON.parse(explained.stdout) as object)).toEqual([
      'patch',
      'patched',
      'rejections',
      'warnings',
      'audited',
      'diff',
      'failures',
      'explain',
    ]);
    expect(explain).toMatchObject({
      explainVersion: 1,
      kind: 'explanation',
      status: 'rejected',
      request: { operation: 'CREATE', namespace: 'default', kind: 'Deployment', name: 'unpinned' },
      summary: { rules: 4, candidates: 4, applied: 2, rejected: 1, notMatched: 1, failed: 0 },
      truncated: false,
    });
    expect(explain.children.map((c) => c.label.split(':')[0])).toEqual([
      'kubemod-system/run-as-non-root · Patch · tier 0 · step 1',
      'default/deployment-owner · Patch · tier 0 · step 2',
      'default/log-shipper-sidecar · Patch · tier 10',
      'default/reject-latest-images · Reject · tier 0',
    ]);
  });
});

describe('kubemod-ts dryrun --explain as a process', () => {
  const cli = [
    '--import',
    'tsx',
    join(root, 'src', 'cli', 'main.ts'),
    'dryrun',
    ...sample,
    '--explain',
  ];
  const env = { ...process.env, NO_COLOR: '', FORCE_COLOR: '' };

  it('writes no colour codes into a pipe', { timeout: 60_000 }, () => {
    const child = spawnSync(process.execPath, cli, { encoding: 'utf8', env, cwd: root });
    expect(child.status).toBe(0);
    expect(child.stdout).toContain('default/reject-latest-images · Reject · tier 0: rejected');
    expect(child.stdout).not.toMatch(ANSI);
  });

  it(
    'colours its output on a real terminal (a pseudo-terminal from script(1))',
    { timeout: 60_000 },
    () => {
      const quoted = [process.execPath, ...cli]
        .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
        .join(' ');
      const child = spawnSync('script', ['-qec', quoted, '/dev/null'], {
        encoding: 'utf8',
        env,
        cwd: root,
      });
      expect(child.error).toBeUndefined();
      expect(child.status).toBe(0);
      expect(child.stdout).toContain('\u001b[31m⊘ default/reject-latest-images');
    },
  );
});
