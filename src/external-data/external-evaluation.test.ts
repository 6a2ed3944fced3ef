import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterView } from '../engine/cluster/cluster-view.js';
import { evaluateWithLookups } from '../engine/cluster/resolve-loop.js';
import { evaluate, type EvaluationResult } from '../engine/evaluate.js';
import type { JsonObject } from '../engine/json.js';
import { RuleStore } from '../engine/store.js';
import { makeRule } from '../engine/test-rules.js';
import { createExternalData, type ExternalData } from './external-data.js';
import {
  echoProvider,
  serverTls,
  startProviderServer,
  type ServerTls,
  type TestProviderServer,
} from './provider-server.test-support.js';

// The whole path below the operator: a rule's `external` / `externalOr`, the engine, the
// evaluate → resolve → evaluate loop, this folder's view, resolver, cache and HTTPS client, and a
// real provider on 127.0.0.1 over TLS.

let tls: ServerTls;
let server: TestProviderServer;
let up = true;
let data: ExternalData;
const clock = { now: 0 };

beforeAll(async () => {
  tls = serverTls('provider');
  server = await startProviderServer(tls, (req, res) => {
    if (up) echoProvider(req, res);
    else res.socket?.destroy();
  });
  data = createExternalData({ systemNamespace: 'kubemod-system', now: () => clock.now });
  data.registry.upsert({
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ExternalDataProvider',
    metadata: { name: 'tiers', resourceVersion: '1' },
    spec: {
      url: server.url,
      caBundle: Buffer.from(tls.ca.certPem).toString('base64'),
      failureTTLSeconds: 1,
      allowedNamespaces: ['team-a'],
    },
  });
});
afterAll(async () => {
  data.close();
  await server.close();
});

const pod = (name: string, namespace: string): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, annotations: {} },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

async function run(name: string, value: string, namespace = 'team-a'): Promise<EvaluationResult> {
  const store = new RuleStore();
  store.put(
    makeRule(namespace, 'r', {
      type: 'Patch',
      ...(namespace === 'kubemod-system' ? { targetNamespaceRegex: '.*' } : {}),
      match: [{ select: '$.kind', matchValue: 'Pod' }],
      patch: [{ op: 'add', path: '/metadata/annotations/tier', value }],
    }),
  );
  const cluster: ClusterView = {
    get: () => ({ kind: 'unavailable', reason: 'no objects in this test' }),
    external: (asker, provider, key) => data.view.external(asker, provider, key),
  };
  return evaluateWithLookups(
    () =>
      evaluate(store, { operation: 'CREATE', namespace, object: pod(name, namespace), cluster }),
    data.resolver,
  );
}

function tier(result: EvaluationResult): unknown {
  return ((result.patched.metadata as JsonObject).annotations as JsonObject).tier;
}

describe('external data through the engine', () => {
  it('gives external and externalOr the provider’s value, calling it once per key', async () => {
    up = true;
    const calls = server.seen.length;
    expect(tier(await run('p1', '{{ external "tiers" .Target.metadata.name }}'))).toBe(
      'value-of-p1',
    );
    expect(tier(await run('p1', '{{ externalOr "tiers" .Target.metadata.name "x" }}'))).toBe(
      'value-of-p1',
    );
    expect(server.seen.length - calls).toBe(1);
  });

  it('while the provider is down: externalOr gives its default, external fails the rule', async () => {
    up = false;
    expect(tier(await run('p2', '{{ externalOr "tiers" .Target.metadata.name "fallback" }}'))).toBe(
      'fallback',
    );
    const failed = await run('p3', '{{ external "tiers" .Target.metadata.name }}');
    expect(failed.failures).toHaveLength(1);
    expect(failed.failures[0]?.message).toMatch(/provider down: provider tiers: /);
    expect(failed.pending).toEqual([]);
  });

  it('asks again after failureTTLSeconds and then gets the value', async () => {
    up = true;
    expect((await run('p3', '{{ external "tiers" .Target.metadata.name }}')).failures).toHaveLength(
      1,
    );
    clock.now += 1_000;
    expect(tier(await run('p3', '{{ external "tiers" .Target.metadata.name }}'))).toBe(
      'value-of-p3',
    );
  });

  it('refuses a rule of a namespace the provider does not allow, without a call', async () => {
    const calls = server.seen.length;
    const result = await run('p4', '{{ external "tiers" "k" }}', 'team-b');
    expect(result.failures[0]?.message).toMatch(/not available to rules in namespace team-b/);
    expect(server.seen.length).toBe(calls);
  });
});
