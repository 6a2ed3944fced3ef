import { beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority } from '../tls/certificates.js';
import type { PendingAsk } from '../engine/cluster/cluster-view.js';
import { createExternalData, type ExternalData } from './external-data.js';
import type { ProviderCaller } from './provider-client.js';
import type { KeyAnswer } from './provider-protocol.js';
import type { ClientCertificate, ExternalDataProvider } from './provider-types.js';

// The resolver, the view and the registry together, with a scripted provider caller and an
// injected clock: what is called, what is cached for how long, and what each rule may use.

let caBundle = '';
beforeAll(() => {
  caBundle = Buffer.from(createCertificateAuthority({ commonName: 'p' }).certPem).toString(
    'base64',
  );
});
const SYSTEM = 'kubemod-system';

interface Call {
  readonly provider: string;
  readonly keys: readonly string[];
  readonly cert: ClientCertificate | undefined;
  readonly timeoutMs: number;
}

/** A caller that answers `value-of-<key>` (or fails while `down` is set) and records calls. */
function scriptedCaller(): ProviderCaller & {
  calls: Call[];
  down: string | undefined;
  hold: Promise<void> | undefined;
} {
  const caller = {
    calls: [] as Call[],
    down: undefined as string | undefined,
    hold: undefined as Promise<void> | undefined,
    async call(
      p: ExternalDataProvider,
      keys: readonly string[],
      cert: ClientCertificate | undefined,
      timeoutMs: number,
    ): Promise<Map<string, KeyAnswer>> {
      caller.calls.push({ provider: p.name, keys, cert, timeoutMs });
      await caller.hold;
      if (caller.down !== undefined) throw new Error(`provider ${p.name}: ${caller.down}`);
      return new Map(
        keys.map((k): [string, KeyAnswer] =>
          k.startsWith('err-')
            ? [k, { kind: 'error', message: `no ${k}` }]
            : k.startsWith('none-')
              ? [k, { kind: 'absent' }]
              : [k, { kind: 'value', value: `value-of-${k}` }],
        ),
      );
    },
    close: () => undefined,
  };
  return caller;
}

function providerObject(name: string, spec: Record<string, unknown> = {}, rv = '1'): unknown {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ExternalDataProvider',
    metadata: { name, resourceVersion: rv },
    spec: { url: 'https://p.example/', caBundle, ...spec },
  };
}

function setup(loadClientCert?: (name: string) => Promise<ClientCertificate>): {
  data: ExternalData;
  caller: ReturnType<typeof scriptedCaller>;
  clock: { now: number };
} {
  const clock = { now: 0 };
  const caller = scriptedCaller();
  const data = createExternalData({
    systemNamespace: SYSTEM,
    now: () => clock.now,
    caller,
    ...(loadClientCert === undefined ? {} : { loadClientCert }),
  });
  return { data, caller, clock };
}

const system = { namespace: SYSTEM, name: 'cluster-rule' };
const tenant = { namespace: 'team-a', name: 'tenant-rule' };
const ask = (provider: string, key: string, asker = system): PendingAsk => ({
  type: 'external',
  asker,
  provider,
  key,
});

describe('external data: view and resolver', () => {
  it('answers pending, then (after one batched call) the values from the cache', async () => {
    const { data, caller } = setup();
    data.registry.upsert(providerObject('p'));
    expect(data.view.external(system, 'p', 'a')).toEqual({ kind: 'pending' });
    await data.resolver.resolve(
      [ask('p', 'b'), ask('p', 'a'), ask('p', 'a'), ask('p', 'err-x'), ask('p', 'none-y')],
      800,
    );
    expect(caller.calls).toEqual([
      { provider: 'p', keys: ['a', 'b', 'err-x', 'none-y'], cert: undefined, timeoutMs: 500 },
    ]);
    expect(data.view.external(system, 'p', 'a')).toEqual({ kind: 'found', value: 'value-of-a' });
    expect(data.view.external(system, 'p', 'none-y')).toEqual({ kind: 'absent' });
    expect(data.view.external(system, 'p', 'err-x')).toEqual({
      kind: 'unavailable',
      reason: 'provider p answered an error for the key: no err-x',
    });
    // Cached: asking again calls nothing.
    await data.resolver.resolve([ask('p', 'a'), ask('p', 'b')], 800);
    expect(caller.calls).toHaveLength(1);
  });

  it('caches values for cacheTTLSeconds and failures for failureTTLSeconds', async () => {
    const { data, caller, clock } = setup();
    data.registry.upsert(providerObject('p', { cacheTTLSeconds: 30, failureTTLSeconds: 2 }));
    await data.resolver.resolve([ask('p', 'a')], 1_000);
    caller.down = 'connect ECONNREFUSED 127.0.0.1:1';
    await data.resolver.resolve([ask('p', 'b')], 1_000);
    expect(data.view.external(system, 'p', 'b')).toEqual({
      kind: 'unavailable',
      reason: 'provider down: provider p: connect ECONNREFUSED 127.0.0.1:1',
    });
    clock.now += 1_999;
    expect(data.view.external(system, 'p', 'b').kind).toBe('unavailable');
    clock.now += 1;
    expect(data.view.external(system, 'p', 'b')).toEqual({ kind: 'pending' });
    caller.down = undefined;
    await data.resolver.resolve([ask('p', 'b')], 1_000);
    expect(data.view.external(system, 'p', 'b')).toEqual({ kind: 'found', value: 'value-of-b' });
    expect(data.view.external(system, 'p', 'a').kind).toBe('found');
    clock.now += 28_000; // a was fetched 30 s ago
    expect(data.view.external(system, 'p', 'a')).toEqual({ kind: 'pending' });
  });

  it('bounds each call by the time left, and does not cache a call the deadline cut short', async () => {
    const { data, caller } = setup();
    data.registry.upsert(providerObject('p', { timeoutMs: 900 }));
    caller.down = 'no answer within 120 ms';
    await data.resolver.resolve([ask('p', 'a')], 120);
    expect(caller.calls.map((c) => c.timeoutMs)).toEqual([120]);
    expect(data.view.external(system, 'p', 'a')).toEqual({ kind: 'pending' });
    await data.resolver.resolve([ask('p', 'a')], 0);
    expect(caller.calls).toHaveLength(1);
  });

  it('shares a call in flight with concurrent asks for the same key', async () => {
    const { data, caller } = setup();
    data.registry.upsert(providerObject('p'));
    let release: () => void = () => undefined;
    caller.hold = new Promise((resolve) => {
      release = resolve;
    });
    const first = data.resolver.resolve([ask('p', 'a'), ask('p', 'b')], 1_000);
    const second = data.resolver.resolve([ask('p', 'b'), ask('p', 'c')], 1_000);
    await Promise.resolve();
    release();
    await Promise.all([first, second]);
    expect(caller.calls.map((c) => c.keys)).toEqual([['a', 'b'], ['c']]);
    expect(data.view.external(system, 'p', 'b').kind).toBe('found');
  });

  it('splits more than 100 keys into several calls', async () => {
    const { data, caller } = setup();
    data.registry.upsert(providerObject('p'));
    const keys = Array.from({ length: 250 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    await data.resolver.resolve(
      keys.map((k) => ask('p', k)),
      1_000,
    );
    expect(caller.calls.map((c) => c.keys.length)).toEqual([100, 100, 50]);
  });

  it.each([
    [[], 'team-a', 'refused'],
    [['team-b'], 'team-a', 'refused'],
    [['team-a'], 'team-a', 'pending'],
    [['*'], 'team-a', 'pending'],
    [[], SYSTEM, 'pending'],
  ])('allowedNamespaces %j: a rule in %s gets %s', (allowed, namespace, kind) => {
    const { data } = setup();
    data.registry.upsert(providerObject('p', { allowedNamespaces: allowed }));
    expect(data.view.external({ namespace, name: 'r' }, 'p', 'k').kind).toBe(kind);
  });

  it('refuses a tenant an unknown or invalid provider without saying which, calls nothing', async () => {
    const { data, caller } = setup();
    data.registry.upsert(providerObject('bad', { url: 'http://plain/' }));
    for (const name of ['bad', 'missing'])
      expect(data.view.external(tenant, name, 'k')).toEqual({
        kind: 'refused',
        reason: `external-data provider "${name}" is not available to rules in namespace team-a (an admin lists namespaces in the provider's spec.allowedNamespaces)`,
      });
    expect(data.view.external(system, 'missing', 'k')).toEqual({
      kind: 'unavailable',
      reason: 'no ExternalDataProvider named "missing"',
    });
    const bad = data.view.external(system, 'bad', 'k');
    expect(bad.kind === 'unavailable' && bad.reason).toMatch(
      /ExternalDataProvider bad is invalid: spec.url: must be an https/,
    );
    await data.resolver.resolve(
      [ask('bad', 'k'), ask('missing', 'k'), ask('bad', 'k', tenant)],
      1_000,
    );
    expect(caller.calls).toEqual([]);
  });

  it('refuses a key longer than 1024 characters', () => {
    const { data } = setup();
    data.registry.upsert(providerObject('p'));
    expect(data.view.external(system, 'p', 'k'.repeat(1025)).kind).toBe('refused');
  });

  it('forgets cached answers when the provider changes or goes', async () => {
    const { data } = setup();
    data.registry.upsert(providerObject('p'));
    await data.resolver.resolve([ask('p', 'a')], 1_000);
    data.registry.upsert(providerObject('p', { timeoutMs: 700 }, '2'));
    expect(data.view.external(system, 'p', 'a')).toEqual({ kind: 'pending' });
    await data.resolver.resolve([ask('p', 'a')], 1_000);
    data.registry.remove('p');
    expect(data.cache.size).toBe(0);
    expect(data.view.external(system, 'p', 'a').kind).toBe('unavailable');
  });

  it('sends the client certificate read from the Secret, and fails the keys when it is unreadable', async () => {
    const cert = { certPem: 'CERT', keyPem: 'KEY' };
    const reads: string[] = [];
    const { data, caller } = setup((name) => {
      reads.push(name);
      return name === 'good'
        ? Promise.resolve(cert)
        : Promise.reject(new Error(`secrets "${name}" is forbidden`));
    });
    data.registry.upsert(providerObject('p', { clientCertSecretRef: { name: 'good' } }));
    data.registry.upsert(providerObject('q', { clientCertSecretRef: { name: 'locked' } }));
    await data.resolver.resolve([ask('p', 'a'), ask('q', 'a')], 1_000);
    await data.resolver.resolve([ask('p', 'b')], 1_000);
    expect(caller.calls.map((c) => [c.provider, c.cert])).toEqual([
      ['p', cert],
      ['p', cert],
    ]);
    expect(reads).toEqual(['good', 'locked']); // read once, then kept
    expect(data.view.external(system, 'q', 'a')).toEqual({
      kind: 'unavailable',
      reason: 'provider down: provider q: secrets "locked" is forbidden',
    });
  });
});
