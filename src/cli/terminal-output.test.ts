/**
 * End to end through each command's function: objects and rules carrying terminal escape
 * sequences, C1 controls, carriage returns and bidi overrides, and the text the commands print
 * for a person (tables, diffs, trees, warnings, errors) holding none of them raw.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../engine/json.js';
import { FORBIDDEN } from './terminal-controls.test-support.js';
import { CONFIGMAPS, FakeAuditApi } from '../audit/run/fake-audit-api.test-support.js';
import { MODRULES, NAMESPACES } from '../audit/cluster/cluster-inputs.js';
import { runAudit } from './audit-command.js';
import { runMain } from './run-main.test-support.js';

/** An annotation a tenant controls: window title, clear screen, 8-bit CSI, line rewrite. */
const EVIL = 'a\u001b]0;pwned\u0007\u001b[2J\u009b31m\rZ';
/** Printable to YAML and JSON, but reorders what a terminal shows. */
const BIDI = 'admin\u202e\u2066txt';

const RULES = [
  {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name: 'copy-evil', namespace: 'shop' },
    spec: {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
      patch: [
        {
          op: 'add',
          path: '/metadata/labels/copied',
          value: '{{ .Target.metadata.annotations.evil }}',
        },
      ],
    },
  },
  {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name: 'copy-bidi', namespace: 'shop' },
    spec: {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
      patch: [
        { op: 'add', path: '/data/bidi', value: '"{{ .Target.metadata.annotations.bidi }}"' },
      ],
    },
  },
];

function configMap(name: string): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'shop', annotations: { evil: EVIL, bidi: BIDI } },
    data: { note: `x${EVIL}` },
  };
}

function workDir(): string {
  return mkdtempSync(join(tmpdir(), 'kubemod-terminal-'));
}

/** Asserts `text` holds no raw control or bidi character (only `sgr` colour codes, if allowed). */
function expectTerminalSafe(text: string, sgr = false): void {
  // eslint-disable-next-line no-control-regex -- the renderer's own colour codes
  const bare = sgr ? text.replace(/\u001b\[[0-9;]*m/g, '') : text;
  const at = FORBIDDEN.exec(bare);
  expect(
    at === null ? 'none' : JSON.stringify(bare.slice(Math.max(0, at.index - 30), at.index + 5)),
  ).toBe('none');
}

/** The CLI in process, with no time backstop: a rule failure must be the YAML one. */
async function runCli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await runMain(argv, { clock: () => 0 });
  return { code, out: stdout, err: stderr };
}

describe('kubemod-ts audit prints no raw control characters', () => {
  it('escapes names, rule failures and diffs from the cluster in its table', async () => {
    const api = new FakeAuditApi();
    api.discovery = [
      {
        group: '',
        version: 'v1',
        resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['list'] }],
      },
    ];
    api.add(NAMESPACES, { metadata: { name: 'shop' } });
    api.add(CONFIGMAPS, configMap(`cm\u001b[2J${BIDI}`));
    for (const rule of RULES)
      api.add(MODRULES, { ...rule, metadata: { ...rule.metadata, generation: 1 } });
    let out = '';
    let err = '';
    // Time backstops far away: a busy machine must not turn the rule failure into a timeout.
    const slow = [
      '--rule-time-ms',
      '30000',
      '--namespace-time-ms',
      '30000',
      '--request-time-ms',
      '30000',
    ];
    const code = await runAudit(slow, {
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      env: {},
      api,
      now: () => 0,
    });
    expect(err).toBe('');
    expect(code).toBe(1);
    expectTerminalSafe(out);
    expectTerminalSafe(err);
    expect(out).toContain('cm\\x1b[2Jadmin\\u202e\\u2066txt');
    expect(out).toMatch(/warning: ModRule shop\/copy-evil failed on .*\\x1b\]0;pwned\\x07/);
    expect(out).toContain('+  bidi: admin\\u202e\\u2066txt');
  });
});

describe('kubemod-ts dryrun prints no raw control characters', () => {
  function inputs(): string[] {
    const dir = workDir();
    writeFileSync(join(dir, 'rules.json'), RULES.map((r) => JSON.stringify(r)).join('\n---\n'));
    writeFileSync(join(dir, 'object.json'), JSON.stringify(configMap('cm')));
    return ['dryrun', '--modrule', join(dir, 'rules.json'), '--resource', join(dir, 'object.json')];
  }

  it.each([
    ['yaml', [], false],
    ['diff', ['-o', 'diff'], false],
    ['json', ['-o', 'json'], false],
    ['a plain explain tree', ['--explain', '--color', 'never'], false],
    ['a coloured explain tree', ['--explain', '--color', 'always'], true],
  ] as const)('in its %s output and its warnings', async (_what, flags, sgr) => {
    const { code, out, err } = await runCli([...inputs(), ...flags]);
    expect(code).toBe(0);
    expectTerminalSafe(out, sgr);
    expectTerminalSafe(err);
    expect(err).toMatch(/warning: ModRule shop\/copy-evil failed .*\\x1b\]0;pwned\\x07/);
    expect(out).toMatch(/admin\\u202e\\u2066txt/);
  });

  it('in its error messages', async () => {
    const { code, err } = await runCli([
      'dryrun',
      '--modrule',
      'x',
      '--resource',
      `/no/such\u001b]0;t\u0007`,
    ]);
    expect(code).toBe(1);
    expectTerminalSafe(err);
    expect(err).toContain('\\x1b]0;t\\x07');
  });
});

describe('kubemod-ts test prints no raw control characters', () => {
  it('escapes case names, problems and diffs in its text report', async () => {
    const dir = workDir();
    const file = {
      rules: RULES,
      cases: [
        {
          name: `evil\u001b[2J case\u009b`,
          resource: configMap('cm'),
          expect: { patched: { kind: `ConfigMap${BIDI}` } },
        },
      ],
    };
    writeFileSync(join(dir, 'kubemod-test.yaml'), JSON.stringify(file));
    const { code, out, err } = await runCli(['test', dir]);
    expect(err).toBe('');
    expect(code).toBe(1);
    expectTerminalSafe(out);
    expectTerminalSafe(err);
    expect(out).toContain('FAIL   evil\\x1b[2J case\\x9b');
    expect(out).toContain('evil: "a\\e]0;pwned\\a');
    expect(out).toContain('admin\\u202e\\u2066txt');
  });

  it.each(['json', 'junit'])(
    'writes %s with the characters escaped as the format does',
    async (format) => {
      const dir = workDir();
      const file = {
        rules: RULES,
        cases: [
          {
            name: `evil\u001b[2J\u202e`,
            resource: configMap('cm'),
            expect: { patched: { kind: 'x' } },
          },
        ],
      };
      writeFileSync(join(dir, 'kubemod-test.yaml'), JSON.stringify(file));
      const { code, out, err } = await runCli(['test', dir, '-o', format]);
      expect(code).toBe(1);
      expectTerminalSafe(out);
      expectTerminalSafe(err);
      expect(out).toContain(format === 'json' ? 'evil\\u001b[2J\\u202e' : 'evil\uFFFD[2J&#x202E;');
    },
  );

  it('escapes an invalid file name in its output and errors', async () => {
    const dir = workDir();
    const name = join(dir, 'bad\u001b[2J.kubemod-test.yaml');
    writeFileSync(name, 'cases: [');
    const { code, out, err } = await runCli(['test', name]);
    expect(code).toBe(2);
    expectTerminalSafe(out);
    expectTerminalSafe(err);
    expect(out).toContain('bad\\x1b[2J.kubemod-test.yaml');
  });
});

describe('kubemod-ts', () => {
  it('escapes an unknown command', async () => {
    const { code, err } = await runCli([`\u009b2J\u202e`]);
    expect(code).toBe(2);
    expectTerminalSafe(err);
    expect(err).toContain('unknown command "\\x9b2J\\u202e"');
  });
});
