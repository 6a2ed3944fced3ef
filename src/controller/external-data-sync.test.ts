import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../engine/json.js';
import { createLogger } from '../observability/logger.js';
import type { ProviderCaller } from '../external-data/provider-client.js';
import type { KeyAnswer } from '../external-data/provider-protocol.js';
import type { ClientCertificate } from '../external-data/provider-types.js';
import { createCertificateAuthority, issueCertificate } from '../tls/certificates.js';
import { FakeKube } from '../kube/fake-kube.test-support.js';
import { createOperatorExternalData, PROVIDERS_PATH } from './external-data-sync.js';
import { collectionListWatch, createInformer, type Informer } from '../kube/informer.js';
import { KubeApiError } from '../kube/kube-client.js';

// The operator's half of external data: providers from an informer, client certificates from a
// Secret GET, and readiness when the CRD is missing.

const SYSTEM = 'kubemod-system';
const system = { namespace: SYSTEM, name: 'r' };
let caBundle = '';
let clientSecret: JsonObject = {};

beforeAll(() => {
  const ca = createCertificateAuthority({ commonName: 'ca' });
  caBundle = Buffer.from(ca.certPem).toString('base64');
  const cert = issueCertificate(ca, { commonName: 'kubemod', usages: ['client'] });
  clientSecret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'provider-client', namespace: SYSTEM },
    type: 'kubernetes.io/tls',
    data: {
      'tls.crt': Buffer.from(cert.certPem).toString('base64'),
      'tls.key': Buffer.from(cert.keyPem).toString('base64'),
    },
  };
});

function caller(): ProviderCaller & { certs: (ClientCertificate | undefined)[] } {
  const c = {
    certs: [] as (ClientCertificate | undefined)[],
    call(
      _p: unknown,
      keys: readonly string[],
      cert: ClientCertificate | undefined,
    ): Promise<Map<string, KeyAnswer>> {
      c.certs.push(cert);
      return Promise.resolve(new Map(keys.map((k) => [k, { kind: 'value', value: k }] as const)));
    },
    close: () => undefined,
  };
  return c;
}

function start(kube: FakeKube, provider = caller()): ReturnType<typeof createOperatorExternalData> {
  const informer = (path: string): Informer =>
    createInformer(collectionListWatch(kube, path), {
      delay: (ms, signal) =>
        new Promise((resolve) => {
          const timer = setTimeout(resolve, ms);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        }),
      backoff: { initialMs: 1, maxMs: 1 },
    });
  return createOperatorExternalData({
    client: kube,
    informer,
    namespace: SYSTEM,
    clusterNamespace: SYSTEM,
    logger: createLogger({ level: 'silent' }),
    now: () => 0,
    caller: provider,
  });
}

function providerObject(name: string, secret?: string): JsonObject {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ExternalDataProvider',
    metadata: { name, resourceVersion: '1' },
    spec: {
      url: 'https://p.example/',
      caBundle,
      ...(secret === undefined ? {} : { clientCertSecretRef: { name: secret } }),
    },
  };
}

describe('operator external data', () => {
  it('lists providers, then calls them with the client certificate of their Secret', async () => {
    const kube = new FakeKube();
    kube.objects.set(`${PROVIDERS_PATH}/p`, providerObject('p', 'provider-client'));
    kube.objects.set(`${PROVIDERS_PATH}/q`, providerObject('q', 'missing'));
    kube.objects.set(`/api/v1/namespaces/${SYSTEM}/secrets/provider-client`, clientSecret);
    const c = caller();
    const ext = start(kube, c);
    ext.informer.start();
    await ext.waitForSync();
    expect(ext.synced()).toBe(true);
    expect(ext.data.registry.names()).toEqual(['p', 'q']);
    const asks = ['p', 'q'].map((provider) => ({
      type: 'external' as const,
      asker: system,
      provider,
      key: 'k',
    }));
    await ext.data.resolver.resolve(asks, 1_000);
    expect(ext.data.view.external(system, 'p', 'k')).toEqual({ kind: 'found', value: 'k' });
    expect(c.certs).toHaveLength(1);
    expect(c.certs[0]?.certPem).toMatch(/BEGIN CERTIFICATE/);
    const q = ext.data.view.external(system, 'q', 'k');
    expect(q.kind === 'unavailable' && q.reason).toMatch(
      /client certificate Secret kubemod-system\/missing cannot be read .*grant the operator get on it/,
    );
    expect(kube.calls).toContain(`GET /api/v1/namespaces/${SYSTEM}/secrets/missing`);
    ext.informer.stop();
  });

  it.each([404, 403])(
    'is ready with no provider when the list answers %d (CRD missing, no permission)',
    async (status) => {
      const kube = new FakeKube();
      kube.list = (): Promise<JsonObject> => Promise.reject(new KubeApiError(status, 'nope'));
      const ext = start(kube);
      ext.informer.start();
      await ext.waitForSync();
      expect(ext.synced()).toBe(true);
      expect(ext.informer.synced).toBe(false);
      expect(ext.data.view.external(system, 'p', 'k')).toEqual({
        kind: 'unavailable',
        reason: 'no ExternalDataProvider named "p"',
      });
      ext.informer.stop();
    },
  );

  it('is not ready while the API server is unreachable', async () => {
    const kube = new FakeKube();
    kube.down = true;
    const ext = start(kube);
    ext.informer.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ext.synced()).toBe(false);
    ext.informer.stop();
  });
});
