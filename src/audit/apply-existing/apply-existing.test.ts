import { describe, expect, it } from 'vitest';
import { evaluate } from '../../engine/evaluate.js';
import type { JsonObject } from '../../engine/json.js';
import { RuleStore } from '../../engine/store.js';
import { makeRule } from '../../engine/test-rules.js';
import {
  JobInterrupted,
  runApplyJob,
  type ApplyJobOptions,
  type ObjectOutcome,
} from './apply-existing.js';
import { AccessCheckFailed, type AuthorAccess } from '../../authz/apply-gate.js';
import { CONFIGMAPS, DEPLOYMENTS, FakeAuditApi } from '../run/fake-audit-api.test-support.js';
import { identityOf } from '../run/object-verdict.js';
import { TokenBucket } from '../../authz/token-bucket.js';

const ALLOW_ALL: AuthorAccess = {
  mayList: () => Promise.resolve(true),
  mayUpdate: () => Promise.resolve(true),
  confirmUpdate: () => Promise.resolve(true),
};

const deployment = (name: string, labels: Record<string, string> = {}): JsonObject => ({
  metadata: { name, namespace: 'shop', labels },
  spec: {
    template: { metadata: { labels: {} }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

const tier = makeRule('shop', 'tier', {
  type: 'Patch',
  match: [{ select: '$.kind', matchValue: 'Deployment' }],
  patch: [{ op: 'add', path: '/spec/template/metadata/labels/tier', value: 'web' }],
});

function harness(rules = [tier]): {
  api: FakeAuditApi;
  store: RuleStore;
  options: (overrides?: Partial<ApplyJobOptions>) => ApplyJobOptions;
  outcomes: string[];
  waits: number[];
} {
  const api = new FakeAuditApi();
  const store = new RuleStore();
  for (const rule of rules) store.put(rule);
  const run = (object: JsonObject) =>
    evaluate(store, { operation: 'UPDATE', namespace: identityOf(object).namespace, object });
  // The "webhook": patches every update with the store's rules.
  api.admit = (object) => run(object).patched;
  const outcomes: string[] = [];
  const waits: number[] = [];
  let clock = 0;
  const bucket = new TokenBucket({
    ratePerSecond: 4,
    burst: 1,
    now: () => clock,
    delay: (ms) => {
      waits.push(ms);
      clock += ms;
      return Promise.resolve();
    },
  });
  const options = (overrides: Partial<ApplyJobOptions> = {}): ApplyJobOptions => ({
    api,
    rule: rules[0] ?? tier,
    tasks: [{ target: DEPLOYMENTS, namespace: 'shop', fallbackNamespaces: [] }],
    access: ALLOW_ALL,
    namespaces: undefined,
    evaluate: (object) => run(object),
    limiter: {
      acquire: async (_target, _current, _patched, signal) => {
        await bucket.take(signal);
        return () => undefined;
      },
    },
    signal: new AbortController().signal,
    checkContinue: () => undefined,
    pageSize: 2,
    onOutcome: (object, _target, outcome: ObjectOutcome) => {
      outcomes.push(
        `${identityOf(object).name}:${outcome.kind}${outcome.kind === 'failed' ? `:${outcome.reason}` : ''}`,
      );
    },
    onUnreadable: () => undefined,
    initial: { updated: 0, failed: 0, forbidden: 0 },
    ...overrides,
  });
  return { api, store, options, outcomes, waits };
}

describe('runApplyJob', () => {
  it('re-submits each object the rule would change, once, rate-limited, and skips conforming ones', async () => {
    const { api, options, outcomes, waits } = harness();
    api.add(DEPLOYMENTS, deployment('a'));
    api.add(DEPLOYMENTS, deployment('b'));
    const done = deployment('c');
    (((done.spec as JsonObject).template as JsonObject).metadata as JsonObject).labels = {
      tier: 'web',
    };
    api.add(DEPLOYMENTS, done);
    api.add(DEPLOYMENTS, deployment('d'));

    const counts = await runApplyJob(options());
    expect(counts).toEqual({ updated: 3, failed: 0, forbidden: 0 });
    expect(outcomes).toEqual(['a:updated', 'b:updated', 'd:updated']);
    for (const name of ['a', 'b', 'd']) {
      expect(api.updates(name)).toBe(1);
      const stored = api.find(DEPLOYMENTS, 'shop', name);
      expect(JSON.stringify(stored)).toContain('"tier":"web"');
    }
    expect(api.updates('c')).toBe(0);
    // 4 per second: the 2nd and 3rd writes waited 250 ms each.
    expect(waits).toEqual([250, 250]);

    // Run again (a new leader resuming): every object conforms, nothing is written.
    const again = await runApplyJob(options({ initial: counts }));
    expect(again).toEqual({ updated: 3, failed: 0, forbidden: 0 });
    expect(['a', 'b', 'c', 'd'].map((n) => api.updates(n))).toEqual([1, 1, 0, 1]);
  });

  it('counts objects the update would reject, and refuses rules that are not idempotent', async () => {
    const appender = makeRule('shop', 'appender', {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'Deployment' }],
      patch: [{ op: 'add', path: '/spec/template/spec/containers/-1', value: 'name: x\nimage: y' }],
    });
    const rejecter = makeRule('shop', 'no-b', {
      type: 'Reject',
      match: [{ select: '$.metadata.name', matchValue: 'b' }],
    });
    const { api, options, outcomes } = harness([tier, rejecter]);
    api.add(DEPLOYMENTS, deployment('a'));
    api.add(DEPLOYMENTS, deployment('b'));
    expect(await runApplyJob(options())).toEqual({ updated: 1, failed: 1, forbidden: 0 });
    expect(outcomes).toEqual(['a:updated', 'b:failed:an update would be rejected: shop/no-b']);
    expect(api.updates('b')).toBe(0);

    const second = harness([appender]);
    second.api.add(DEPLOYMENTS, deployment('a'));
    expect(await runApplyJob(second.options())).toEqual({ updated: 0, failed: 1, forbidden: 0 });
    expect(second.outcomes[0]).toMatch(/not idempotent/);
    expect(second.api.updates('a')).toBe(0);
  });

  it('re-reads an object that changed meanwhile instead of overwriting it', async () => {
    const { api, options, outcomes } = harness();
    api.add(DEPLOYMENTS, deployment('a'));
    let raced = false;
    api.beforeUpdate = () => {
      if (raced) return;
      raced = true;
      api.touch(DEPLOYMENTS, 'shop', 'a', (o) => {
        ((o.metadata as JsonObject).labels as JsonObject).edited = 'by-someone';
      });
    };
    expect(await runApplyJob(options())).toEqual({ updated: 1, failed: 0, forbidden: 0 });
    expect(outcomes).toEqual(['a:updated']);
    const stored = JSON.stringify(api.find(DEPLOYMENTS, 'shop', 'a'));
    expect(stored).toContain('"edited":"by-someone"');
    expect(stored).toContain('"tier":"web"');
    expect(api.updates('a')).toBe(2);
  });

  it('counts an update the webhook did not patch as failed', async () => {
    const { api, options, outcomes } = harness();
    api.admit = (object) => object;
    api.add(DEPLOYMENTS, deployment('a'));
    expect(await runApplyJob(options())).toEqual({ updated: 0, failed: 1, forbidden: 0 });
    expect(outcomes[0]).toMatch(/admitted without the patch/);
  });

  it('stops between objects when told to, keeping what it did', async () => {
    const { api, options, outcomes } = harness();
    for (const name of ['a', 'b', 'c']) api.add(DEPLOYMENTS, deployment(name));
    let allowed = 1;
    const job = runApplyJob(
      options({
        checkContinue: () => {
          if (outcomes.length >= allowed) throw new JobInterrupted('no longer the leader');
        },
      }),
    );
    await expect(job).rejects.toBeInstanceOf(JobInterrupted);
    expect(outcomes).toEqual(['a:updated']);
    allowed = 10;
    expect(
      await runApplyJob(options({ initial: { updated: 1, failed: 0, forbidden: 0 } })),
    ).toEqual({
      updated: 3,
      forbidden: 0,
      failed: 0,
    });
    expect(['a', 'b', 'c'].map((n) => api.updates(n))).toEqual([1, 1, 1]);
  });

  it('counts objects the author may not update as forbidden, without touching or describing them', async () => {
    const { api, options, outcomes } = harness();
    for (const name of ['a', 'b', 'c']) api.add(DEPLOYMENTS, deployment(name));
    const done = deployment('d');
    (((done.spec as JsonObject).template as JsonObject).metadata as JsonObject).labels = {
      tier: 'web',
    };
    api.add(DEPLOYMENTS, done);
    const asked: string[] = [];
    const access: AuthorAccess = {
      mayList: () => Promise.resolve(true),
      mayUpdate: (target, namespace, name) => {
        asked.push(`${target.resource} ${namespace ?? ''}/${name}`);
        return Promise.resolve(name !== 'b');
      },
      confirmUpdate: () => Promise.resolve(true),
    };
    expect(await runApplyJob(options({ access }))).toEqual({ updated: 2, failed: 0, forbidden: 1 });
    expect(outcomes).toEqual(['a:updated', 'b:forbidden', 'c:updated']);
    expect(api.updates('b')).toBe(0);
    expect(JSON.stringify(api.find(DEPLOYMENTS, 'shop', 'b'))).not.toContain('tier');
    // Only objects the rule would change are asked about (d already conforms).
    expect(asked).toEqual(['deployments shop/a', 'deployments shop/b', 'deployments shop/c']);
  });

  it('never lists a collection the author may not list, and narrows a cluster-wide list to the namespaces it may', async () => {
    const { api, options, outcomes } = harness();
    api.add(DEPLOYMENTS, deployment('a'));
    api.add(CONFIGMAPS, { metadata: { name: 'secret-ish', namespace: 'shop' } });
    api.add(DEPLOYMENTS, { ...deployment('o'), metadata: { name: 'o', namespace: 'other' } });
    const skipped: string[] = [];
    let evaluated = 0;
    const access: AuthorAccess = {
      mayList: (target, namespace) =>
        Promise.resolve(target.resource === 'deployments' && namespace === 'shop'),
      mayUpdate: () => Promise.resolve(true),
      confirmUpdate: () => Promise.resolve(true),
    };
    const counts = await runApplyJob(
      options({
        access,
        tasks: [
          { target: DEPLOYMENTS, namespace: undefined, fallbackNamespaces: ['other', 'shop'] },
          { target: CONFIGMAPS, namespace: 'shop', fallbackNamespaces: [] },
        ],
        evaluate: (object) => {
          evaluated++;
          return evaluate(new RuleStore(), {
            operation: 'UPDATE',
            namespace: identityOf(object).namespace,
            object,
          });
        },
        onNotListable: (target, namespace) =>
          skipped.push(`${target.resource} ${namespace ?? '*'}`),
      }),
    );
    expect(counts).toEqual({ updated: 0, failed: 0, forbidden: 0 });
    expect(outcomes).toEqual([]);
    expect(skipped).toEqual(['deployments other', 'configmaps shop']);
    expect(api.calls.filter((c) => c.startsWith('LIST'))).toEqual([
      'LIST /apis/apps/v1/namespaces/shop/deployments limit=2 continue=',
    ]);
    expect(evaluated).toBe(1);
  });

  it('stops (to be retried) when an access review cannot be answered', async () => {
    const { api, options, outcomes } = harness();
    api.add(DEPLOYMENTS, deployment('a'));
    const access: AuthorAccess = {
      mayList: () => Promise.resolve(true),
      mayUpdate: () => Promise.reject(new AccessCheckFailed('SubjectAccessReview failed: down')),
      confirmUpdate: () => Promise.resolve(true),
    };
    await expect(runApplyJob(options({ access }))).rejects.toBeInstanceOf(AccessCheckFailed);
    expect(outcomes).toEqual([]);
    expect(api.updates('a')).toBe(0);
  });

  it('asks the author afresh right before each write, after the limiter let it through (issue 37)', async () => {
    const { api, options, outcomes } = harness();
    for (const name of ['a', 'b', 'c']) api.add(DEPLOYMENTS, deployment(name));
    const order: string[] = [];
    // The cached answer says yes for every object; by the time b's turn comes (the limiter may
    // have waited minutes for a rollout), the author has lost the right to update b.
    const access: AuthorAccess = {
      mayList: () => Promise.resolve(true),
      mayUpdate: () => Promise.resolve(true),
      confirmUpdate: (_target, _namespace, name) => {
        order.push(`confirm ${name}`);
        return Promise.resolve(name !== 'b');
      },
    };
    const counts = await runApplyJob(
      options({
        access,
        limiter: {
          acquire: (_target, current) => {
            order.push(`acquire ${identityOf(current).name}`);
            return Promise.resolve(() => undefined);
          },
        },
      }),
    );
    expect(counts).toEqual({ updated: 2, failed: 0, forbidden: 1 });
    expect(outcomes).toEqual(['a:updated', 'b:forbidden', 'c:updated']);
    expect(order).toEqual([
      'acquire a',
      'confirm a',
      'acquire b',
      'confirm b',
      'acquire c',
      'confirm c',
    ]);
    expect(api.updates('b')).toBe(0);
  });
});
