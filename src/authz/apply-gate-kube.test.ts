import { describe, expect, it } from 'vitest';
import type { KubeClient, KubeRequest } from '../kube/kube-client.js';
import type { JsonObject } from '../engine/json.js';
import { makeRule } from '../engine/test-rules.js';
import { AccessCheckFailed } from './apply-gate.js';
import { kubeApplyGate } from './apply-gate-kube.js';
import { parseOptInLabel } from './apply-opt-in.js';
import { AUTHOR_ANNOTATION } from './author-record.js';
import { AUTHOR_MAC_ANNOTATION, authorSigner } from './author-signature.js';
import { CONFIGMAPS, DEPLOYMENTS } from '../audit/run/fake-audit-api.test-support.js';
import { VirtualClock } from '../audit/apply-existing/virtual-clock.test-support.js';

const signer = authorSigner(Buffer.alloc(32, 5));

const AUTHOR = '{"username":"alice","uid":"u1","groups":["team"],"extra":{"scopes":["a"]}}';

/** A rule as the webhook records it: the author and (unless `signed` is false) its MAC. */
function ruleObject(author: string | undefined, signed = true): JsonObject {
  return {
    metadata: {
      name: 'tier',
      namespace: 'shop',
      annotations:
        author === undefined
          ? {}
          : {
              [AUTHOR_ANNOTATION]: author,
              ...(signed ? { [AUTHOR_MAC_ANNOTATION]: signer.sign('shop', 'tier', author) } : {}),
            },
    },
  };
}

const rule = makeRule('shop', 'tier', {
  type: 'Patch',
  match: [{ select: '$.kind', matchValue: 'Deployment' }],
  patch: [{ op: 'add', path: '/metadata/labels/a', value: 'b' }],
});

/** A client that answers access reviews with `decide` and records them. */
function reviewer(decide: (review: JsonObject) => boolean | Error): {
  client: KubeClient;
  reviews: JsonObject[];
} {
  const reviews: JsonObject[] = [];
  const client: KubeClient = {
    request(req: KubeRequest): Promise<JsonObject> {
      const body = req.body as JsonObject;
      reviews.push({ path: req.path, ...body });
      const answer = decide(body);
      if (answer instanceof Error) return Promise.reject(answer);
      return Promise.resolve({ ...body, status: { allowed: answer } });
    },
    list: () => Promise.reject(new Error('not used')),
    watch: () => {
      throw new Error('not used');
    },
  };
  return { client, reviews };
}

function gateWith(
  client: KubeClient,
  labels: Record<string, string>,
  clock = { now: 0 },
  limits: { reviewsPerSecond?: number; reviewBurst?: number; delay?: VirtualClock['delay'] } = {},
) {
  return kubeApplyGate({
    client,
    signer,
    delay: limits.delay ?? (() => Promise.resolve()),
    ...(limits.reviewsPerSecond === undefined ? {} : { reviewsPerSecond: limits.reviewsPerSecond }),
    ...(limits.reviewBurst === undefined ? {} : { reviewBurst: limits.reviewBurst }),
    optIn: {
      label: parseOptInLabel('apply-to-existing.kubemod.io/enabled=true'),
      regex: undefined,
    },
    namespaces: () => new Map([['shop', { metadata: { name: 'shop', labels } }]]),
    targets: () => Promise.resolve([DEPLOYMENTS, CONFIGMAPS]),
    now: () => clock.now,
    ttlMs: 1000,
    maxEntries: 3,
  });
}

const ENABLED = { 'apply-to-existing.kubemod.io/enabled': 'true' };

describe('kubeApplyGate', () => {
  it('asks the API server with the recorded identity, caching briefly and boundedly', async () => {
    const { client, reviews } = reviewer((review) => {
      const attrs = (review.spec as JsonObject).resourceAttributes as JsonObject;
      return attrs.name !== 'platform';
    });
    const clock = { now: 0 };
    const access = gateWith(client, ENABLED, clock).accessFor(ruleObject(AUTHOR));
    expect(await access.mayUpdate(DEPLOYMENTS, 'shop', 'web')).toBe(true);
    expect(await access.mayUpdate(DEPLOYMENTS, 'shop', 'platform')).toBe(false);
    expect(reviews[0]).toEqual({
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'alice',
        uid: 'u1',
        groups: ['team'],
        extra: { scopes: ['a'] },
        resourceAttributes: {
          verb: 'update',
          group: 'apps',
          resource: 'deployments',
          namespace: 'shop',
          name: 'web',
        },
      },
    });
    await access.mayUpdate(DEPLOYMENTS, 'shop', 'web');
    expect(reviews).toHaveLength(2);
    clock.now = 1000;
    await access.mayUpdate(DEPLOYMENTS, 'shop', 'web');
    expect(reviews).toHaveLength(3);
    // Bounded: a flood of names evicts the oldest answers rather than growing the cache.
    for (const name of ['n1', 'n2', 'n3', 'n4']) await access.mayUpdate(DEPLOYMENTS, 'shop', name);
    await access.mayUpdate(DEPLOYMENTS, 'shop', 'web');
    expect(reviews).toHaveLength(8);
    expect(await access.mayList(CONFIGMAPS, 'shop')).toBe(true);
    expect(((reviews.at(-1)?.spec as JsonObject).resourceAttributes as JsonObject).verb).toBe(
      'list',
    );
  });

  it('refuses everything to a rule without an author, and throws when a review fails', async () => {
    const { client, reviews } = reviewer(() => new Error('connection refused'));
    const gate = gateWith(client, ENABLED);
    const unknown = gate.accessFor(ruleObject(undefined));
    expect(await unknown.mayList(DEPLOYMENTS, 'shop')).toBe(false);
    expect(reviews).toHaveLength(0);
    await expect(gate.accessFor(ruleObject(AUTHOR)).mayList(DEPLOYMENTS, 'shop')).rejects.toThrow(
      AccessCheckFailed,
    );
  });

  it.each([
    ['an author is recorded', AUTHOR, ENABLED, true, undefined],
    ['no author is recorded', undefined, ENABLED, true, /^no author is recorded on the rule/],
    [
      'the author record is not signed',
      'unsigned',
      ENABLED,
      true,
      /^the author record is not signed/,
    ],
    [
      'the author record is garbage',
      '{"username":',
      ENABLED,
      true,
      /cannot be read; its author is recorded again/,
    ],
    [
      'the namespace is not opted in',
      AUTHOR,
      {},
      true,
      /^apply-to-existing is not enabled in namespace shop: an admin enables it by labelling the namespace apply-to-existing\.kubemod\.io\/enabled=true$/,
    ],
    [
      'the operator may not update the kinds',
      AUTHOR,
      ENABLED,
      false,
      /^apply-to-existing is not enabled: the operator has no update permission on deployments\.apps in namespace shop; an admin installs config\/optional\/apply-to-existing-rbac\.yaml$/,
    ],
  ])('enabled: %s', async (_what, author, labels, operatorMay, refusal) => {
    const { client, reviews } = reviewer((review) =>
      review.kind === 'SelfSubjectAccessReview' ? operatorMay : true,
    );
    const object = author === 'unsigned' ? ruleObject(AUTHOR, false) : ruleObject(author);
    const permission = await gateWith(client, labels).enabled(rule, object);
    if (refusal === undefined) expect(permission).toEqual({ allowed: true });
    else expect(permission.allowed ? undefined : permission.reason).toMatch(refusal);
    if (reviews.length > 0)
      expect(reviews[0]).toMatchObject({
        path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        spec: {
          resourceAttributes: {
            verb: 'update',
            group: 'apps',
            resource: 'deployments',
            namespace: 'shop',
          },
        },
      });
  });

  it('refuses everything to a rule whose record is not signed by the operator (issue 37)', async () => {
    const { client, reviews } = reviewer(() => true);
    const gate = gateWith(client, ENABLED);
    const forged = gate.accessFor(ruleObject(AUTHOR, false));
    expect(await forged.mayList(DEPLOYMENTS, 'shop')).toBe(false);
    expect(await forged.mayUpdate(DEPLOYMENTS, 'shop', 'web')).toBe(false);
    expect(await forged.confirmUpdate(DEPLOYMENTS, 'shop', 'web')).toBe(false);
    expect(reviews).toHaveLength(0);
  });

  it('asks confirmUpdate afresh every time, never from the cache (issue 37)', async () => {
    const { client, reviews } = reviewer(() => true);
    const access = gateWith(client, ENABLED).accessFor(ruleObject(AUTHOR));
    expect(await access.mayUpdate(DEPLOYMENTS, 'shop', 'web')).toBe(true);
    expect(await access.confirmUpdate(DEPLOYMENTS, 'shop', 'web')).toBe(true);
    expect(await access.confirmUpdate(DEPLOYMENTS, 'shop', 'web')).toBe(true);
    expect(reviews).toHaveLength(3);
  });

  it('sends access reviews at the configured rate at most, however many are asked (issue 37)', async () => {
    const { client, reviews } = reviewer(() => true);
    const clock = new VirtualClock(0);
    const time = {
      get now(): number {
        return clock.now();
      },
    };
    const access = gateWith(client, ENABLED, time, {
      reviewsPerSecond: 2,
      reviewBurst: 3,
      delay: clock.delay,
    }).accessFor(ruleObject(AUTHOR));
    // Ten distinct objects (no cache hit): three at once (the burst), then two a second.
    const answers = Promise.all(
      Array.from({ length: 10 }, (_, i) => access.mayUpdate(DEPLOYMENTS, 'shop', `o${String(i)}`)),
    );
    await clock.advance(0);
    expect(reviews).toHaveLength(3);
    await clock.advance(1000);
    expect(reviews).toHaveLength(5);
    await clock.advance(2000);
    expect(reviews).toHaveLength(9);
    await clock.advance(500);
    expect(reviews).toHaveLength(10);
    expect(await answers).toEqual(Array.from({ length: 10 }, () => true));
  });
});
