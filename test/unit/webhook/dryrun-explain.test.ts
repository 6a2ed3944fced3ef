import { afterEach, describe, expect, it } from 'vitest';
import type { ExplainDocument, RuleNode } from '../../../src/engine/explain/index.js';
import type { JsonObject } from '../../../src/engine/json.js';
import { send, startHarness, testTls, type Harness, type HttpAnswer } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const RESOURCE: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'team-a' },
  data: { mode: 'fast' },
};

const modRule = (name: string, spec: JsonObject, namespace?: string): JsonObject => ({
  apiVersion: 'api.kubemod.io/v1beta1',
  kind: 'ModRule',
  metadata: namespace === undefined ? { name } : { name, namespace },
  spec,
});

const MOD_RULES = [
  modRule('add-owner', {
    type: 'Patch',
    match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
    patch: [{ op: 'add', path: '/data/owner', value: '"{{ .Namespace }}"' }],
  }),
  modRule('slow-mode-only', {
    type: 'Patch',
    match: [
      { select: '$.kind', matchValue: 'ConfigMap' },
      { select: '$.data.mode', matchValues: ['slow', 'off'] },
    ],
    patch: [{ op: 'add', path: '/data/slow', value: 'yes' }],
  }),
  modRule('no-fast', {
    type: 'Reject',
    match: [{ select: '$.data.mode', matchValue: 'fast' }],
    rejectMessage: '{{ .Target.data.mode }} mode is off limits',
  }),
  modRule(
    'elsewhere',
    {
      type: 'Patch',
      match: [{ select: '$.kind' }],
      patch: [{ op: 'add', path: '/data/wrong', value: 'x' }],
    },
    'team-b',
  ),
];

function put(
  query: string,
  body: JsonObject = { resourceManifest: RESOURCE, modRules: MOD_RULES },
): Promise<HttpAnswer> {
  if (harness === undefined) throw new Error('no harness');
  return send(harness.server.port, testTls().ca, 'PUT', `/v1/dryrun${query}`, JSON.stringify(body));
}

describe('PUT /v1/dryrun?explain=true (the real HTTPS server)', () => {
  it('adds the explain document; the rest of the answer is the same as without it', async () => {
    // A clock that stands still: the work meter's time backstops must not make the two answers
    // differ on a loaded machine (work units are still counted and limited).
    harness = await startHarness({ clock: () => 0 });
    const plain = await put('');
    const explained = await put('?explain=true');
    expect(plain.status).toBe(200);
    expect(explained.status).toBe(200);
    const { explain, ...rest } = explained.json<{ explain: ExplainDocument } & JsonObject>();
    expect(rest).toEqual(plain.json());
    expect(Object.keys(plain.json())).not.toContain('explain');
    expect(explain).toMatchObject({
      explainVersion: 1,
      status: 'rejected',
      request: { operation: 'CREATE', namespace: 'team-a', kind: 'ConfigMap', name: 'settings' },
      summary: { rules: 4, candidates: 3, skipped: 1, applied: 1, rejected: 1, notMatched: 1 },
    });
    const rules = explain.children.filter((c): c is RuleNode => c.kind === 'rule');
    expect(rules.map((r) => [r.rule, r.status])).toEqual([
      ['team-a/add-owner', 'applied'],
      ['team-a/slow-mode-only', 'not-matched'],
      ['team-a/no-fast', 'rejected'],
      ['team-b/elsewhere', 'skipped'],
    ]);
    expect(rules[1]?.children[1]).toMatchObject({
      kind: 'match',
      status: 'not-matched',
      matchValues: ['slow', 'off'],
      result: { type: 'values', values: ['fast'] },
      decision: 'none-accepted',
    });
    expect(rules[2]?.children.find((c) => c.kind === 'rejection')).toMatchObject({
      message: 'fast mode is off limits',
    });
    expect(rules[3]?.skipped).toMatchObject({ reason: 'namespace' });
  });

  it('accepts explain=1 and ?explain, is off for explain=false and 0', async () => {
    harness = await startHarness();
    for (const query of ['?explain=1', '?explain']) {
      const answer = await put(query);
      expect(answer.json<{ explain?: unknown }>().explain, query).toBeDefined();
    }
    for (const query of ['?explain=false', '?explain=0']) {
      const answer = await put(query);
      expect(answer.json<{ explain?: unknown }>().explain, query).toBeUndefined();
    }
  });

  it('answers 400 naming the parameter for any other value', async () => {
    harness = await startHarness();
    for (const query of ['?explain=yes', '?explain=true&explain=true']) {
      const answer = await put(query);
      expect(answer.status, query).toBe(400);
      expect(answer.json<{ error: string; code: string }>()).toMatchObject({
        code: 'KM6002',
        error: expect.stringContaining('query parameter explain must be true or false') as unknown,
      });
    }
  });

  it('is not served when the dependencies turn the dry run off', async () => {
    harness = await startHarness({ dryRun: false });
    expect((await put('?explain=true')).status).toBe(404);
  });

  it('shows a rule cut off by its work budget as failed with KM5002, like the answer does', async () => {
    harness = await startHarness();
    const bomb = '{{ range until 1000 }}{{ range until 1000 }}xxxxxxxxxx{{ end }}{{ end }}';
    const answer = await put('?explain=true', {
      resourceManifest: RESOURCE,
      modRules: [
        modRule('bomb', {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [{ op: 'add', path: '/data/b', value: bomb }],
        }),
      ],
    });
    const body = answer.json<{ failures: { code: string }[]; explain: ExplainDocument }>();
    expect(body.failures).toEqual([expect.objectContaining({ code: 'KM5002' })]);
    const rule = body.explain.children.find((c) => c.kind === 'rule') as RuleNode;
    expect(rule.status).toBe('failed');
    expect(rule.children.find((c) => c.kind === 'failure')).toMatchObject({
      field: 'spec.patch[0].value',
      code: 'KM5002',
    });
  });
});
