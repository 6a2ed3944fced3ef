import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../engine/json.js';
import { FakeKube } from '../kube/fake-kube.test-support.js';
import { createSilentLogger } from '../observability/logger.js';
import { CertManager, parseCertificateSecret, serviceDnsNames } from './cert-manager.js';
import { caBundlePatch } from './webhook-ca-injector.js';

const SECRET = '/api/v1/namespaces/kubemod-system/secrets/kubemod-webhook-server-cert';

function manager(kube: FakeKube, clock: { now: number }, validityMs = 60 * 60 * 1000): CertManager {
  return new CertManager({
    client: kube,
    logger: createSilentLogger(),
    namespace: 'kubemod-system',
    secretName: 'kubemod-webhook-server-cert',
    dnsNames: serviceDnsNames('kubemod-webhook-service', 'kubemod-system'),
    ipAddresses: ['127.0.0.1'],
    now: () => clock.now,
    validityMs,
  });
}

describe('CertManager', () => {
  it('creates the Secret once; a second replica reads the same certificate', async () => {
    const kube = new FakeKube();
    const clock = { now: Date.now() };
    const first = await manager(kube, clock).ensure();
    const second = await manager(kube, clock).ensure();
    expect(second.certPem).toBe(first.certPem);
    const x509 = new X509Certificate(first.certPem);
    expect(x509.subjectAltName).toContain(
      'DNS:kubemod-webhook-service.kubemod-system.svc.cluster.local',
    );
    expect(x509.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(x509.verify(new X509Certificate(first.caBundlePem).publicKey)).toBe(true);
    expect(kube.calls.filter((c) => c.startsWith('POST'))).toHaveLength(1);
  });

  it('converges on the winner when two replicas race to create the Secret', async () => {
    const kube = new FakeKube();
    const clock = { now: Date.now() };
    const [a, b] = await Promise.all([
      manager(kube, clock).ensure(),
      manager(kube, clock).ensure(),
    ]);
    const stored = kube.objects.get(SECRET);
    expect(stored).toBeDefined();
    const winner = stored === undefined ? undefined : parseCertificateSecret(stored);
    expect([a.certPem, b.certPem]).toEqual([winner?.certPem, winner?.certPem]);
  });

  it('rotates at two thirds of the lifetime, publishing old and new CA before switching', async () => {
    const kube = new FakeKube();
    const clock = { now: Date.now() };
    const m = manager(kube, clock);
    const original = await m.ensure();
    expect(await m.rotateIfNeeded(() => Promise.resolve())).toBeUndefined();
    clock.now += 41 * 60 * 1000;
    const published: string[] = [];
    const rotated = await m.rotateIfNeeded((bundle) => {
      published.push(bundle);
      // The Secret still holds the old certificate while the bundle is published.
      const stored = kube.objects.get(SECRET);
      expect(stored && parseCertificateSecret(stored)?.certPem).toBe(original.certPem);
      return Promise.resolve();
    });
    expect(rotated).toBeDefined();
    expect(rotated?.certPem).not.toBe(original.certPem);
    expect(published).toHaveLength(1);
    expect(published[0]).toContain(original.caBundlePem.trim());
    const stored = kube.objects.get(SECRET);
    expect(stored && parseCertificateSecret(stored)?.certPem).toBe(rotated?.certPem);
  });

  it('rotates a certificate that lacks a required SAN', async () => {
    const kube = new FakeKube();
    const clock = { now: Date.now() };
    const withoutIp = new CertManager({
      client: kube,
      logger: createSilentLogger(),
      namespace: 'kubemod-system',
      secretName: 's',
      dnsNames: ['a'],
      ipAddresses: [],
      now: () => clock.now,
    }).generate();
    expect(manager(kube, clock).needsRotation(await withoutIp)).toBe(true);
  });
});

describe('caBundlePatch', () => {
  const config: JsonObject = {
    metadata: { name: 'm', resourceVersion: '7' },
    webhooks: [
      {
        name: 'dragnet.kubemod.io',
        clientConfig: { service: { name: 's', namespace: 'n', path: '/dragnet' } },
      },
      {
        name: 'podbinding.kubemod.io',
        clientConfig: { caBundle: 'QQ==', url: 'https://127.0.0.1:1/podbinding' },
      },
    ],
  };

  it('sets caBundle on every webhook, guarded by the resourceVersion', () => {
    expect(caBundlePatch(config, 'QQ==', undefined)).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'add', path: '/webhooks/0/clientConfig/caBundle', value: 'QQ==' },
    ]);
  });

  it('rewrites service references to URLs in URL mode and is empty when up to date', () => {
    const ops = caBundlePatch(config, 'QQ==', 'https://127.0.0.1:9443');
    expect(ops).toContainEqual({ op: 'remove', path: '/webhooks/0/clientConfig/service' });
    expect(ops).toContainEqual({
      op: 'add',
      path: '/webhooks/0/clientConfig/url',
      value: 'https://127.0.0.1:9443/dragnet',
    });
    expect(ops).toContainEqual({
      op: 'add',
      path: '/webhooks/1/clientConfig/url',
      value: 'https://127.0.0.1:9443/podbinding',
    });
    const done = {
      metadata: { resourceVersion: '8' },
      webhooks: [{ clientConfig: { caBundle: 'QQ==', url: 'https://127.0.0.1:9443/dragnet' } }],
    };
    expect(caBundlePatch(done, 'QQ==', 'https://127.0.0.1:9443')).toEqual([]);
  });
});
