import fastJsonPatch from 'fast-json-patch';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTHOR_ANNOTATION } from '../../../src/authz/author-record.js';
import type { JsonObject } from '../../../src/engine/json.js';
import { admissionReview, decodePatch, responseOf, startHarness, type Harness } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const INVALID: JsonObject = {
  apiVersion: 'api.kubemod.io/v1beta1',
  kind: 'ModRule',
  metadata: { name: 'x', namespace: 'default' },
  spec: {
    type: 'Patch',
    match: [{ select: '$.kind[' }, { select: '$.metadata.name', matchRegex: '(unclosed' }],
    patch: [
      { op: 'add', path: '/metadata/labels/a', value: 'ok' },
      { op: 'add', path: '/metadata/labels/b', value: '{{ .Target.metadata.name' },
    ],
  },
};

/** The author record of the harness's user (kubernetes-admin), as the mutating webhook writes it. */
const ADMIN_AUTHOR =
  '{"username":"kubernetes-admin","groups":["system:masters","system:authenticated"],"extra":{}}';

function authored(object: JsonObject, author: string = ADMIN_AUTHOR): JsonObject {
  const metadata = (object.metadata ?? {}) as JsonObject;
  const annotations = (metadata.annotations ?? {}) as JsonObject;
  return {
    ...object,
    metadata: { ...metadata, annotations: { ...annotations, [AUTHOR_ANNOTATION]: author } },
  };
}

function modRuleReview(
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  object: JsonObject,
  apiVersion?: 'admission.k8s.io/v1beta1',
  userInfo?: JsonObject | null,
): JsonObject {
  const review = admissionReview({
    apiVersion,
    operation,
    kind: 'ModRule',
    group: 'api.kubemod.io',
    resource: 'modrules',
    namespace: 'default',
    name: 'x',
    object: operation === 'DELETE' ? null : object,
    oldObject: operation === 'CREATE' ? null : object,
  });
  if (userInfo !== undefined) (review.request as JsonObject).userInfo = userInfo;
  return review;
}

describe('POST /validate-api-kubemod-io-v1beta1-modrule', () => {
  it('refuses an invalid ModRule with every field error in the message', async () => {
    harness = await startHarness();
    const answer = await harness.post(
      '/validate-api-kubemod-io-v1beta1-modrule',
      modRuleReview('CREATE', INVALID),
    );
    const { response } = responseOf(answer);
    expect(response.allowed).toBe(false);
    expect(response.status?.code).toBe(403);
    const message = response.status?.message ?? '';
    expect(message).toMatch(/^ModRule default\/x is invalid: /);
    expect(message).toContain('spec.match[0].select: ');
    expect(message).toContain('spec.match[1].matchRegex: ');
    expect(message).toContain('spec.patch[1].value: ');
    expect(message).not.toContain('spec.patch[0]');
    expect(message.split('; ')).toHaveLength(3);
  });

  it('refuses schema errors (API validation) too, and names the rule from the request namespace', async () => {
    harness = await startHarness();
    const object: JsonObject = {
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: { name: 'y' },
      spec: { type: 'Mutate', match: [] },
    };
    const answer = await harness.post(
      '/validate-api-kubemod-io-v1beta1-modrule',
      modRuleReview('UPDATE', object, 'admission.k8s.io/v1beta1'),
    );
    const review = responseOf(answer);
    expect(review.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(review.response.allowed).toBe(false);
    expect(review.response.status?.message).toMatch(/^ModRule default\/y is invalid: spec\.type: /);
  });

  it('allows valid ModRules and any DELETE', async () => {
    harness = await startHarness();
    const valid: JsonObject = {
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: { name: 'x', namespace: 'default' },
      spec: {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'Pod' }],
        patch: [{ op: 'remove', path: '/metadata/labels/a' }],
      },
    };
    const ok = await harness.post(
      '/validate-api-kubemod-io-v1beta1-modrule',
      modRuleReview('CREATE', authored(valid)),
    );
    expect(responseOf(ok).response).toEqual({ uid: 'uid-1', allowed: true });
    const del = await harness.post(
      '/validate-api-kubemod-io-v1beta1-modrule',
      modRuleReview('DELETE', INVALID),
    );
    expect(responseOf(del).response).toEqual({ uid: 'uid-1', allowed: true });
  });
});

describe('POST /mutate-api-kubemod-io-v1beta1-modrule', () => {
  it('answers a JSONPatch that fills the defaults', async () => {
    harness = await startHarness();
    const rule: JsonObject = {
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: { name: 'x', namespace: 'default' },
      spec: {
        type: 'Patch',
        match: [
          { select: '$.kind', matchValue: 'Pod' },
          { select: '$.metadata.name', matchFor: 'All', matchValue: 'a' },
        ],
        patch: [{ op: 'add', path: '/metadata/labels/a', value: '"b"' }],
      },
    };
    const answer = await harness.post(
      '/mutate-api-kubemod-io-v1beta1-modrule',
      modRuleReview('CREATE', rule),
    );
    const { response } = responseOf(answer);
    expect(response.allowed).toBe(true);
    expect(response.patchType).toBe('JSONPatch');
    const patched = fastJsonPatch.applyPatch(
      structuredClone(rule),
      decodePatch(response) as fastJsonPatch.Operation[],
    ).newDocument;
    expect(patched.metadata).toEqual(authored(rule).metadata);
    expect(patched.spec).toEqual({
      ...(rule.spec as JsonObject),
      executionTier: 0,
      admissionOperations: ['CREATE', 'UPDATE'],
      match: [
        { select: '$.kind', matchValue: 'Pod', matchFor: 'Any' },
        { select: '$.metadata.name', matchFor: 'All', matchValue: 'a' },
      ],
    });
  });

  it('has nothing to patch on an already defaulted rule, and leaves invalid rules to the validator', async () => {
    harness = await startHarness();
    const rule: JsonObject = {
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: { name: 'x', namespace: 'default' },
      spec: {
        type: 'Reject',
        executionTier: 2,
        admissionOperations: ['DELETE'],
        match: [{ select: '$.kind', matchFor: 'Any' }],
      },
    };
    const same = await harness.post(
      '/mutate-api-kubemod-io-v1beta1-modrule',
      modRuleReview('CREATE', authored(rule)),
    );
    expect(responseOf(same).response).toEqual({ uid: 'uid-1', allowed: true });
    const invalid = await harness.post(
      '/mutate-api-kubemod-io-v1beta1-modrule',
      modRuleReview('CREATE', authored({ ...rule, spec: { type: 'Nope' } })),
    );
    expect(responseOf(invalid).response).toEqual({ uid: 'uid-1', allowed: true });
  });
});

describe('POST /podbinding-webhook', () => {
  it('hands pod, namespace and node to the binder and always allows', async () => {
    const binds: string[] = [];
    harness = await startHarness({
      nodeRefs: {
        bind: (namespace, pod, node) => {
          binds.push(`${namespace}/${pod}@${node}`);
          return Promise.reject(new Error('api down'));
        },
      },
    });
    const binding: JsonObject = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'web-0', namespace: 'shop' },
      target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
    };
    const answer = await harness.post(
      '/podbinding-webhook',
      admissionReview({
        operation: 'CREATE',
        kind: 'Binding',
        resource: 'pods',
        subResource: 'binding',
        namespace: 'shop',
        name: 'web-0',
        object: binding,
      }),
    );
    expect(responseOf(answer).response).toEqual({ uid: 'uid-1', allowed: true });
    await harness.close();
    expect(binds).toEqual(['shop/web-0@node-a']);
    expect(harness.logs.find((l) => l.level === 'error')?.msg).toBe(
      'cannot record the node of pod shop/web-0: api down',
    );
  });

  it('has no side effect on a dry-run binding', async () => {
    const binds: string[] = [];
    harness = await startHarness({
      nodeRefs: {
        bind: (namespace, pod, node) => {
          binds.push(`${namespace}/${pod}@${node}`);
          return Promise.resolve();
        },
      },
    });
    const review = admissionReview({
      operation: 'CREATE',
      kind: 'Binding',
      resource: 'pods',
      subResource: 'binding',
      namespace: 'shop',
      name: 'p',
      object: { kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n' } },
    });
    (review.request as JsonObject).dryRun = true;
    const answer = await harness.post('/podbinding-webhook', review);
    expect(responseOf(answer).response).toEqual({ uid: 'uid-1', allowed: true });
    await harness.close();
    expect(binds).toEqual([]);
  });

  it('allows bindings when no binder is configured (standalone)', async () => {
    harness = await startHarness();
    const binding: JsonObject = {
      kind: 'Binding',
      metadata: { name: 'p' },
      target: { kind: 'Node', name: 'n' },
    };
    const answer = await harness.post(
      '/podbinding-webhook',
      admissionReview({
        operation: 'CREATE',
        kind: 'Binding',
        resource: 'pods',
        subResource: 'binding',
        namespace: 'shop',
        name: 'p',
        object: binding,
      }),
    );
    expect(responseOf(answer).response).toEqual({ uid: 'uid-1', allowed: true });
  });
});

describe('ModRule author record', () => {
  const TENANT_AUTHOR =
    '{"username":"alice","uid":"u-123","groups":["team-shop","system:authenticated"],"extra":{"__proto__":["x"],"a.example/team":["shop"],"z.example/scope":["b","a"]}}';
  const RULE: JsonObject = {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name: 'x', namespace: 'default' },
    spec: {
      type: 'Patch',
      executionTier: 0,
      admissionOperations: ['CREATE', 'UPDATE'],
      match: [{ select: '$.kind', matchValue: 'Deployment', matchFor: 'Any' }],
      patch: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'evil' }],
    },
  };
  // As the API server sends it: extra unsorted, and a key that is special in JavaScript objects.
  const tenantInfo = JSON.parse(
    '{"username":"alice","uid":"u-123","groups":["team-shop","system:authenticated"],"extra":{"z.example/scope":["b","a"],"a.example/team":["shop"],"__proto__":["x"]}}',
  ) as JsonObject;

  async function mutate(
    object: JsonObject,
    userInfo: JsonObject | null,
  ): Promise<{
    metadata: JsonObject;
    warnings: string[] | undefined;
  }> {
    harness ??= await startHarness();
    // A CREATE: an UPDATE that changes nothing keeps the previous record (modrule-author.test.ts).
    const answer = await harness.post(
      '/mutate-api-kubemod-io-v1beta1-modrule',
      modRuleReview('CREATE', object, undefined, userInfo),
    );
    const { response } = responseOf(answer);
    expect(response.allowed).toBe(true);
    const patched =
      response.patch === undefined
        ? object
        : fastJsonPatch.applyPatch(
            structuredClone(object),
            decodePatch(response) as fastJsonPatch.Operation[],
          ).newDocument;
    return { metadata: patched.metadata as JsonObject, warnings: response.warnings };
  }

  it.each([
    ['a forged admin identity', authored(RULE, ADMIN_AUTHOR)],
    ['garbage', authored(RULE, 'not json')],
    ['nothing', RULE],
  ])('replaces %s in the annotation with the requesting tenant', async (_what, object) => {
    const { metadata } = await mutate(object, tenantInfo);
    expect((metadata.annotations as JsonObject)[AUTHOR_ANNOTATION]).toBe(TENANT_AUTHOR);
  });

  it('records the author on invalid rules too (the validator refuses them anyway)', async () => {
    const { metadata } = await mutate(
      authored({ ...RULE, spec: { type: 'Nope' } }, ADMIN_AUTHOR),
      tenantInfo,
    );
    expect((metadata.annotations as JsonObject)[AUTHOR_ANNOTATION]).toBe(TENANT_AUTHOR);
  });

  it('removes a forged author when the requester cannot be recorded, and warns', async () => {
    const huge = {
      username: 'bob',
      groups: Array.from({ length: 2000 }, (_, i) => `group-${String(i)}`),
    };
    const { metadata, warnings } = await mutate(
      authored({
        ...RULE,
        metadata: { ...(RULE.metadata as JsonObject), annotations: { keep: 'me' } },
      }),
      huge,
    );
    expect(metadata.annotations).toEqual({ keep: 'me' });
    expect(warnings?.[0]).toMatch(/^the author of this ModRule was not recorded/);
    const none = await mutate(authored(RULE), null);
    expect(none.metadata.annotations).toEqual({});
  });

  it.each([
    ['the requester', tenantInfo, TENANT_AUTHOR, true],
    ['someone else', tenantInfo, ADMIN_AUTHOR, false],
    ['absent for a requester that is recorded', tenantInfo, undefined, false],
    ['present without a requester', null, TENANT_AUTHOR, false],
    ['absent without a requester', null, undefined, true],
  ])(
    'the validating webhook compares the author with the request (%s)',
    async (_what, userInfo, author, allowed) => {
      harness ??= await startHarness();
      const object = author === undefined ? RULE : authored(RULE, author);
      const answer = await harness.post(
        '/validate-api-kubemod-io-v1beta1-modrule',
        modRuleReview('CREATE', object, undefined, userInfo),
      );
      const { response } = responseOf(answer);
      expect(response.allowed).toBe(allowed);
      if (!allowed)
        expect(response.status?.message).toMatch(
          /^ModRule default\/x is invalid: metadata\.annotations\[api\.kubemod\.io\/author\]: must be /,
        );
    },
  );
});
