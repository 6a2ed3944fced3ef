import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/engine/json.js';
import { send, startHarness, testTls, type Harness } from './harness.js';

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

function rule(name: string, annotations: Record<string, string>, spec: object): JsonObject {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, annotations },
    spec,
  } as JsonObject;
}

const FAST = [{ select: '$.data.mode', matchValue: 'fast' }];

interface Answer {
  rejections: string[];
  warnings: string[];
  audited: string[];
  failures: { rule: string; failurePolicy: string }[];
}

async function put(
  modRules: JsonObject[],
): Promise<{ status: number; body: Answer; text: string }> {
  if (harness === undefined) throw new Error('no harness');
  const answer = await send(
    harness.server.port,
    testTls().ca,
    'PUT',
    '/v1/dryrun',
    JSON.stringify({ resourceManifest: RESOURCE, modRules }),
  );
  return { status: answer.status, body: answer.json<Answer>(), text: answer.text };
}

describe('PUT /v1/dryrun: enforcement modes and failure policy', () => {
  it('answers Warn matches in warnings and Audit matches in audited, not in rejections', async () => {
    harness = await startHarness();
    const { status, body } = await put([
      rule(
        'warn-fast',
        { 'api.kubemod.io/enforcement': 'Warn' },
        {
          type: 'Reject',
          match: FAST,
          rejectMessage: '{{ .Target.metadata.name }} runs fast',
        },
      ),
      rule(
        'audit-fast',
        { 'api.kubemod.io/enforcement': 'Audit' },
        { type: 'Reject', match: FAST },
      ),
    ]);
    expect(status).toBe(200);
    expect(body.rejections).toEqual([]);
    expect(body.warnings).toEqual(['team-a/warn-fast: "settings runs fast"']);
    expect(body.audited).toEqual(['team-a/audit-fast']);
  });

  it('answers a Fail-policy rule that cannot be evaluated as the refusal the webhook gives', async () => {
    harness = await startHarness();
    const { body } = await put([
      rule(
        'strict',
        { 'api.kubemod.io/failure-policy': 'Fail' },
        {
          type: 'Patch',
          match: FAST,
          patch: [{ op: 'add', path: '/data/x', value: '{{ fail "nope" }}' }],
        },
      ),
    ]);
    expect(body.rejections).toEqual([
      expect.stringMatching(
        /^team-a\/strict: "could not be evaluated \(failure policy Fail\): KM3002 /,
      ),
    ]);
    expect(body.failures).toMatchObject([{ rule: 'team-a/strict', failurePolicy: 'Fail' }]);
  });

  it('refuses an invalid annotation with 400 naming the rule and the field', async () => {
    harness = await startHarness();
    const { status, text } = await put([
      rule('typo', { 'api.kubemod.io/enforcement': 'Warning' }, { type: 'Reject', match: FAST }),
    ]);
    expect(status).toBe(400);
    expect(text).toContain(
      'ModRule team-a/typo is invalid: metadata.annotations[api.kubemod.io/enforcement]: must be one of Enforce, Warn, Audit, got \\"Warning\\"',
    );
  });
});
