import { describe, expect, it } from 'vitest';
import type { AskingRule, ObjectKey } from '../../engine/cluster/cluster-view.js';
import type { ResourceAttributes } from '../../authz/access-review.js';
import type { AuthorRecord, UserInfo } from '../../authz/author-record.js';
import { createSilentLogger } from '../../observability/logger.js';
import type { KubeObject } from '../../kube/informer.js';
import { createKubeClusterView, createLookupResolver } from './kube-cluster-view.js';
import { createLookupCaches } from './lookup-caches.js';
import { scriptedSources } from './lookup-caches.test-support.js';
import { parseLookupKinds } from './lookup-kinds.js';
import { createLookupReviewer } from './lookup-reviewer.js';
import { createReadPlanner } from './read-plan.js';
import { ReviewCache } from './review-cache.js';

const alice: UserInfo = { username: 'alice', uid: undefined, groups: ['devs'], extra: {} };

function object(kind: string, namespace: string, name: string, extra = {}): KubeObject {
  return { kind, metadata: { name, namespace, resourceVersion: '1' }, ...extra };
}

/** A ClusterView over scripted caches; `allowed` decides each access review. */
async function setup(
  options: {
    readonly kinds?: string;
    readonly authors?: Record<string, AuthorRecord>;
    readonly allowed?: (attributes: ResourceAttributes) => boolean | Error;
    readonly forbidden?: string[];
    /** Every review answers when this settles. */
    readonly hang?: Promise<boolean>;
    /** The resolver's deadline passes at once. */
    readonly deadlineNow?: boolean;
  } = {},
) {
  let clock = 0;
  const asked: ResourceAttributes[] = [];
  const sources = scriptedSources({
    ConfigMap: [
      object('ConfigMap', 'team-a', 'settings', { data: { images: 'nginx' } }),
      object('ConfigMap', 'team-b', 'secret-ish', { data: { token: 'b-only' } }),
    ],
    Secret: [object('Secret', 'team-a', 'creds', { data: { p: 'eA==' } })],
    PersistentVolume: [
      { kind: 'PersistentVolume', metadata: { name: 'pv1', resourceVersion: '1' } },
    ],
  });
  const caches = createLookupCaches({
    client: undefined as never,
    kinds: parseLookupKinds(options.kinds ?? 'ConfigMap,Secret,PersistentVolume'),
    logger: createSilentLogger(),
    delay: () => Promise.resolve(),
    listWatch: sources.listWatch,
    mayWatch: (kind) => Promise.resolve(!(options.forbidden ?? []).includes(kind.kind)),
  });
  await caches.start();
  for (const kind of ['ConfigMap', 'Secret', 'PersistentVolume']) sources.finish(kind);
  await caches.waitForSync();
  const reviews = new ReviewCache({ now: () => clock });
  const authors = options.authors ?? {};
  const planner = createReadPlanner({
    caches,
    clusterNamespace: 'kubemod-system',
    authorOf: (asker) =>
      authors[`${asker.namespace}/${asker.name}`] ?? { known: true, user: alice, key: 'alice' },
  });
  const runner = createLookupReviewer({
    ask: (_user, attributes) => {
      asked.push(attributes);
      if (options.hang !== undefined) return options.hang;
      const answer = options.allowed?.(attributes) ?? true;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
    cache: reviews,
    logger: createSilentLogger(),
    now: () => clock,
    delay: () => Promise.resolve(),
  });
  const view = createKubeClusterView({ planner, reviews, runner });
  const resolver = createLookupResolver({
    planner,
    runner,
    sleep: () => (options.deadlineNow === true ? Promise.resolve() : new Promise(() => undefined)),
  });
  /** get, resolving once when pending (as evaluateWithLookups does). */
  const read = async (asker: AskingRule, key: ObjectKey) => {
    const first = view.get(asker, key);
    if (first.kind !== 'pending') return first;
    await resolver.resolve([{ type: 'object', asker, key }], 1000);
    return view.get(asker, key);
  };
  return {
    view,
    resolver,
    read,
    asked,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

const tenant: AskingRule = { namespace: 'team-a', name: 'r' };
const admin: AskingRule = { namespace: 'kubemod-system', name: 'r' };
const cmKey = (namespace: string, name: string): ObjectKey => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace,
  name,
});

describe('the operator ClusterView', () => {
  it('answers pending until the author review is cached, then reads from the cache', async () => {
    const { view, read, asked } = await setup();
    expect(view.get(tenant, cmKey('team-a', 'settings'))).toEqual({ kind: 'pending' });
    const answer = await read(tenant, cmKey('team-a', 'settings'));
    expect(answer.kind === 'found' && answer.value).toMatchObject({ data: { images: 'nginx' } });
    expect(asked).toEqual([
      { verb: 'get', group: '', resource: 'configmaps', namespace: 'team-a', name: 'settings' },
    ]);
    // Steady state: no more reviews.
    for (let i = 0; i < 100; i++) view.get(tenant, cmKey('team-a', 'settings'));
    expect(asked).toHaveLength(1);
  });

  it('answers absent for a missing object the author may get', async () => {
    const { read } = await setup();
    expect(await read(tenant, cmKey('team-a', 'nope'))).toEqual({ kind: 'absent' });
  });

  it('pins a namespaced rule to its namespace, without naming or reading the other one', async () => {
    const { view, asked } = await setup();
    const answer = view.get(tenant, cmKey('team-b', 'secret-ish'));
    expect(answer.kind).toBe('refused');
    const text = JSON.stringify(answer);
    expect(text).not.toContain('team-b');
    expect(text).not.toContain('b-only');
    expect(text).toContain('reads only its own namespace');
    expect(asked).toEqual([]);
  });

  it('lets kubemod-system rules read other namespaces and cluster-scoped kinds', async () => {
    const { read } = await setup();
    expect((await read(admin, cmKey('team-b', 'secret-ish'))).kind).toBe('found');
    const pv = await read(admin, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      namespace: '',
      name: 'pv1',
    });
    expect(pv.kind).toBe('found');
    const tenantPv = await read(tenant, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      namespace: undefined,
      name: 'pv1',
    });
    expect(tenantPv).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('cluster-scoped') as unknown,
    });
  });

  it('refuses what the author may not get, even though the operator could read it', async () => {
    const { read } = await setup({ allowed: (a) => a.resource !== 'secrets' });
    const answer = await read(tenant, {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: 'team-a',
      name: 'creds',
    });
    expect(answer).toEqual({
      kind: 'refused',
      reason:
        "the rule's author (alice) may not get secrets in namespace team-a (SubjectAccessReview)",
    });
    expect(JSON.stringify(answer)).not.toContain('eA==');
  });

  it('refuses a rule without a recorded author without asking', async () => {
    const { read, asked } = await setup({
      authors: { 'team-a/r': { known: false, reason: 'no author is recorded' } },
    });
    expect(await read(tenant, cmKey('team-a', 'settings'))).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('no author is recorded') as unknown,
    });
    expect(asked).toEqual([]);
  });

  it.each([
    [
      { apiVersion: 'v1', kind: 'Service', namespace: 'team-a', name: 's' },
      /Service \(v1\) is not cached for lookups: an admin adds it to --lookup-kinds \(chart value lookups.kinds\)/,
    ],
    [
      { apiVersion: 'v1', kind: 'Secret', namespace: 'team-a', name: 'creds' },
      /operator may not list and watch secrets: an admin installs config\/optional\/lookups-rbac.yaml/,
    ],
  ])('names the kind and the flag when %j cannot be read', async (key, reason) => {
    const { view } = await setup({ forbidden: ['Secret'] });
    const answer = view.get(tenant, key);
    expect(answer.kind).toBe('unavailable');
    expect(answer.kind === 'unavailable' && answer.reason).toMatch(reason);
  });

  it('makes a failed review unavailable (never allowed, never empty) and retries it later', async () => {
    let fail = true;
    const { read, advance, asked } = await setup({
      allowed: () => (fail ? new Error('connection refused') : true),
    });
    expect(await read(tenant, cmKey('team-a', 'settings'))).toMatchObject({
      kind: 'unavailable',
      reason: expect.stringContaining('connection refused') as unknown,
    });
    fail = false;
    advance(5_000);
    expect((await read(tenant, cmKey('team-a', 'settings'))).kind).toBe('found');
    expect(asked).toHaveLength(2);
  });

  it('refreshes an aging answer in the background and expires an old one', async () => {
    let allow = true;
    const { view, read, advance, asked } = await setup({ allowed: () => allow });
    await read(tenant, cmKey('team-a', 'settings'));
    advance(31_000);
    allow = false;
    // Aging: still the cached answer, and a refresh starts.
    expect(view.get(tenant, cmKey('team-a', 'settings')).kind).toBe('found');
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toHaveLength(2);
    expect(view.get(tenant, cmKey('team-a', 'settings')).kind).toBe('refused');
    advance(61_000);
    expect(view.get(tenant, cmKey('team-a', 'settings'))).toEqual({ kind: 'pending' });
  });

  it('deduplicates concurrent reviews of the same read', async () => {
    const { view, resolver, asked } = await setup();
    const ask = { type: 'object' as const, asker: tenant, key: cmKey('team-a', 'settings') };
    await Promise.all([resolver.resolve([ask, ask, ask], 1000), resolver.resolve([ask], 1000)]);
    expect(asked).toHaveLength(1);
    expect(view.get(tenant, cmKey('team-a', 'settings')).kind).toBe('found');
  });

  it('returns at the deadline while a review is still running; it fills the cache later', async () => {
    let answer: (allowed: boolean) => void = () => undefined;
    const { view, resolver } = await setup({
      hang: new Promise<boolean>((resolve) => {
        answer = resolve;
      }),
      deadlineNow: true,
    });
    const ask = { type: 'object' as const, asker: tenant, key: cmKey('team-a', 'settings') };
    await resolver.resolve([ask], 10);
    expect(view.get(tenant, cmKey('team-a', 'settings')).kind).toBe('pending');
    answer(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(view.get(tenant, cmKey('team-a', 'settings')).kind).toBe('found');
  });
});
