import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { lastResortMessage } from './main.js';
import { runMain } from './run-main.test-support.js';

const fixtures = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'eval');

const sidecar = [
  '--modrule',
  join(fixtures, 'sidecar-injection', 'modrules.yaml'),
  '--resource',
  join(fixtures, 'sidecar-injection', 'resource.yaml'),
];

describe('kubemod-ts dryrun', () => {
  it('prints the patched object as YAML by default (the spec sidecar example)', async () => {
    const { code, stdout, stderr } = await runMain(['dryrun', ...sidecar]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const expected = load(
      readFileSync(join(fixtures, 'sidecar-injection', 'expected.yaml'), 'utf8'),
    ) as { patched: unknown };
    expect(load(stdout)).toEqual(expected.patched);
  });

  it('prints patch, patched, rejections and diff as one JSON object', async () => {
    const { code, stdout } = await runMain(['dryrun', ...sidecar, '--output', 'json']);
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual([
      'patch',
      'patched',
      'rejections',
      'warnings',
      'audited',
      'diff',
      'failures',
    ]);
    expect(out.failures).toEqual([]);
    expect(out.patch).toEqual([
      expect.objectContaining({ op: 'add', path: '/spec/template/spec/containers/1' }),
    ]);
    expect(out.rejections).toEqual([]);
    expect(out.diff).toContain('+        - args:');
  });

  it('prints a unified diff', async () => {
    const { code, stdout } = await runMain(['dryrun', ...sidecar, '-o', 'diff']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Index: Deployment/);
    expect(stdout).toContain('+          name: jaeger-agent');
  });

  it('reports rejections in KubeMod format and still exits 0', async () => {
    const dir = join(fixtures, 'reject-external-ips');
    const { code, stdout, stderr } = await runMain([
      'dryrun',
      '--modrule',
      join(dir, 'modrules.yaml'),
      '--resource',
      join(dir, 'resource.yaml'),
      '-o',
      'json',
    ]);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { rejections: string[] }).rejections).toEqual([
      'default/reject-malicious-external-ips: "One or more of the following external IPs are not allowed [123.45.67.10 10.0.0.1]"',
    ]);
    expect(stderr).toContain(
      'operation rejected by the following ModRule(s): default/reject-malicious-external-ips',
    );
  });

  it('honours --operation and --namespace', async () => {
    const dir = join(fixtures, 'operations-filter');
    const create = await runMain([
      'dryrun',
      '--modrule',
      join(dir, 'modrules.yaml'),
      '--resource',
      join(dir, 'resource.yaml'),
      '-o',
      'json',
    ]);
    const update = await runMain([
      'dryrun',
      '--modrule',
      join(dir, 'modrules.yaml'),
      '--resource',
      join(dir, 'resource.yaml'),
      '-o',
      'json',
      '--operation',
      'UPDATE',
      '--namespace',
      'default',
    ]);
    const remove = await runMain([
      'dryrun',
      '--modrule',
      join(dir, 'modrules.yaml'),
      '--resource',
      join(dir, 'resource.yaml'),
      '-o',
      'json',
      '--operation',
      'delete',
    ]);
    const labels = (r: { stdout: string }): unknown =>
      (JSON.parse(r.stdout) as { patched: { metadata: { labels?: unknown } } }).patched.metadata
        .labels;
    expect(labels(create)).toEqual({ 'created-or-updated': 'done' });
    expect(labels(update)).toEqual({ 'created-or-updated': 'done', updated: true });
    expect((JSON.parse(remove.stdout) as { rejections: string[] }).rejections).toEqual([
      'default/on-delete-only',
    ]);
  });

  it('refuses an invalid ModRule with one line naming the file and the fields', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dryrun-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: bad }
spec:
  type: Patch
  match: [{ select: '$.kind', matchRegex: '(' }]
  patch: [{ op: add, path: /x, value: '{{ .Target | nosuchfn }}' }]
`,
    );
    const { code, stdout, stderr } = await runMain([
      'dryrun',
      '--modrule',
      file,
      '--resource',
      sidecar[3] ?? '',
    ]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain(
      `${file}: document 1 (ModRule team-a/bad): spec.match[0].matchRegex: invalid regular expression`,
    );
    expect(stderr).toContain('spec.patch[0].value: function "nosuchfn" not defined');
  });

  it('reports unreadable inputs and usage errors', async () => {
    const missing = await runMain([
      'dryrun',
      '--modrule',
      '/nonexistent.yaml',
      '--resource',
      sidecar[3] ?? '',
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('/nonexistent.yaml: cannot read: ENOENT');
    const noResource = await runMain(['dryrun', '--modrule', sidecar[1] ?? '']);
    expect(noResource.code).toBe(2);
    expect(noResource.stderr).toContain('--resource: is required');
    const badOp = await runMain(['dryrun', ...sidecar, '--operation', 'PATCH']);
    expect(badOp.code).toBe(2);
    const unknown = await runMain(['frobnicate']);
    expect(unknown.code).toBe(2);
  });

  it('lists rules that failed while evaluating: -o json in "failures", every output on stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dryrun-'));
    const file = join(dir, 'failing.yaml');
    writeFileSync(
      file,
      `apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: failing }
spec:
  type: Patch
  match: [{ select: '$.kind' }]
  patch: [{ op: add, path: /metadata/labels/x, value: '{{ fail "nope" }}' }]
`,
    );
    const json = await runMain([
      'dryrun',
      '--modrule',
      file,
      '--resource',
      sidecar[3] ?? '',
      '-o',
      'json',
    ]);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout) as { patch: unknown[]; failures: unknown[] };
    expect(out.patch).toEqual([]);
    expect(out.failures).toEqual([
      {
        rule: 'team-a/failing',
        field: 'spec.patch[0].value',
        code: expect.stringMatching(/^KM\d{4}$/) as unknown,
        message: expect.stringContaining('nope') as unknown,
        failurePolicy: 'Ignore',
      },
    ]);
    for (const output of ['json', 'yaml', 'diff']) {
      const { stderr } = await runMain([
        'dryrun',
        '--modrule',
        file,
        '--resource',
        sidecar[3] ?? '',
        '-o',
        output,
      ]);
      expect(stderr).toMatch(
        /^warning: ModRule team-a\/failing failed and was skipped: spec\.patch\[0\]\.value: .*nope/,
      );
    }
  });
});

describe('lastResortMessage', () => {
  it('is the first line of the message, never a stack trace', () => {
    const err = new RangeError('Maximum call stack size exceeded');
    expect(lastResortMessage(err)).toBe('Maximum call stack size exceeded');
    expect(lastResortMessage(new Error('first\nsecond'))).toBe('first');
    expect(lastResortMessage('text')).toBe('text');
    expect(lastResortMessage(new Error(''))).toBe('unexpected error');
  });
});
