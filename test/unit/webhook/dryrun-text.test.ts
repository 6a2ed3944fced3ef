import { afterEach, describe, expect, it } from 'vitest';
import { MAX_DRYRUN_YAML_CHARS } from '../../../src/webhook/dryrun/dryrun-request.js';
import { send, startHarness, testTls, type Harness, type HttpAnswer } from './harness.js';

// PUT /v1/dryrun with the editors' text, as the playground sends it: YAML for the rules and the
// resource, plus the request's namespace and operation.

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function put(body: Record<string, unknown>): Promise<HttpAnswer> {
  harness ??= await startHarness();
  return send(harness.server.port, testTls().ca, 'PUT', '/v1/dryrun', JSON.stringify(body));
}

interface Answer {
  patch: { op: string; path: string; value?: unknown }[];
  diff: string;
  rejections: string[];
  failures: unknown[];
  patchedYaml?: string;
}

const RULES = `# leading comment document
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: owner
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  patch:
    - op: add
      path: /metadata/labels/owner
      value: '"{{ .Namespace }}"'
---
---
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: no-delete
spec:
  type: Reject
  admissionOperations: [DELETE]
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  rejectMessage: 'keep {{ .Target.metadata.name }}'
`;

const RESOURCE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: team-a
  labels: {app: web}
  creationTimestamp: 2024-05-01T10:00:00Z
data:
  enabled: yes
  port: "8080"
`;

describe('PUT /v1/dryrun with YAML text', () => {
  it('reads the rules (empty documents skipped) and the resource as kubectl would, and adds patchedYaml', async () => {
    const answer = await put({ resourceManifest: RESOURCE, modRules: RULES });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.json<Answer>();
    expect(Object.keys(body).sort()).toEqual([
      'audited',
      'diff',
      'failures',
      'patch',
      'patchedYaml',
      'rejections',
      'warnings',
    ]);
    expect(body.patch).toEqual([{ op: 'add', path: '/metadata/labels/owner', value: 'team-a' }]);
    expect(body.rejections).toEqual([]);
    // Sorted keys, as the diff's `after` side; the timestamp stays the string it was typed as,
    // and `yes` is a boolean (go-yaml), as the API server would have stored them.
    expect(body.patchedYaml).toBe(
      [
        'apiVersion: v1',
        'data:',
        '  enabled: true',
        "  port: '8080'",
        'kind: ConfigMap',
        'metadata:',
        "  creationTimestamp: '2024-05-01T10:00:00Z'",
        '  labels:',
        '    app: web',
        '    owner: team-a',
        '  name: settings',
        '  namespace: team-a',
        '',
      ].join('\n'),
    );
    expect(body.diff).toContain('+    owner: team-a');
  });

  it('takes the namespace and the operation from the body', async () => {
    const inOther = (
      await put({ resourceManifest: RESOURCE, modRules: RULES, namespace: 'team-b' })
    ).json<Answer>();
    expect(inOther.patch).toEqual([{ op: 'add', path: '/metadata/labels/owner', value: 'team-b' }]);

    const deleted = await put({ resourceManifest: RESOURCE, modRules: RULES, operation: 'DELETE' });
    expect(deleted.status, deleted.text).toBe(200);
    const body = deleted.json<Answer>();
    // The Patch rule handles CREATE and UPDATE (the default); the Reject rule only DELETE.
    expect(body.patch).toEqual([]);
    expect(body.rejections).toEqual(['team-a/no-delete: "keep settings"']);

    const updated = (
      await put({ resourceManifest: RESOURCE, modRules: RULES, operation: 'update' })
    ).json<Answer>();
    expect(updated.patch).toHaveLength(1);
    expect(updated.rejections).toEqual([]);
  });

  it('keeps the JSON form of the web app: no patchedYaml for an object', async () => {
    const answer = await put({
      resourceManifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
      modRules: RULES,
    });
    expect(Object.keys(answer.json()).sort()).toEqual([
      'audited',
      'diff',
      'failures',
      'patch',
      'rejections',
      'warnings',
    ]);
  });

  it('answers 400 with an error that starts with the field it concerns', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { resourceManifest: 'kind: ConfigMap\n  bad: indent\n', modRules: RULES },
        /^resourceManifest is not valid YAML: .*\(2:6\)/,
      ],
      [
        { resourceManifest: '# nothing\n', modRules: RULES },
        /^resourceManifest is empty: expected the Kubernetes manifest to evaluate$/,
      ],
      [
        { resourceManifest: '- a\n- b\n', modRules: RULES },
        /^resourceManifest\[0\] must be a Kubernetes object, found a list$/,
      ],
      [
        { resourceManifest: RESOURCE, modRules: 'kind: [unclosed\n' },
        /^modRules: not valid YAML: /,
      ],
      [
        {
          resourceManifest: RESOURCE,
          modRules: RULES.replace('type: Patch', 'type: Patchy'),
        },
        /^modRules\[0\]: ModRule team-a\/owner is invalid: spec\.type: /,
      ],
      [
        { resourceManifest: RESOURCE, modRules: 'x'.repeat(MAX_DRYRUN_YAML_CHARS + 1) },
        new RegExp(
          `^modRules is ${String(MAX_DRYRUN_YAML_CHARS + 1)} characters of text; a dry run reads at most ${String(MAX_DRYRUN_YAML_CHARS)}`,
        ),
      ],
      [
        { resourceManifest: RESOURCE, modRules: RULES, namespace: 'Team_A' },
        /^namespace must be a namespace name .*got "Team_A"$/,
      ],
      [
        { resourceManifest: RESOURCE, modRules: RULES, operation: 'CONNECT' },
        /^operation must be one of CREATE, UPDATE, DELETE, got "CONNECT"$/,
      ],
      [
        { resourceManifest: RESOURCE, modRules: RULES, operation: 7 },
        /^operation must be one of CREATE, UPDATE, DELETE, got 7$/,
      ],
    ];
    for (const [body, pattern] of cases) {
      const answer = await put(body);
      expect(answer.status, answer.text).toBe(400);
      const error = answer.json<{ error: string; code: string }>();
      expect(error.error).toMatch(pattern);
      expect(error.code).toBe('KM6002');
    }
  });

  it('refuses aliases that expand too far in the resource with YAML_LIMIT, naming the field', async () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) {
      lines.push(
        `a${String(i)}: &a${String(i)} [${Array(10)
          .fill(`*a${String(i - 1)}`)
          .join(', ')}]`,
      );
    }
    const answer = await put({
      resourceManifest: `kind: ConfigMap\n${lines.join('\n')}\n`,
      modRules: '',
    });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({
      code: 'KM5004',
      error: expect.stringMatching(/^resourceManifest: /) as unknown,
    });
  });
});
