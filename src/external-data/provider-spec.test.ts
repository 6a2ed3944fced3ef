import { beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueCertificate } from '../tls/certificates.js';
import { describeProviderErrors, readProvider } from './provider-spec.js';

let caBundle: string;
let leafBundle: string;

beforeAll(() => {
  const ca = createCertificateAuthority({ commonName: 'provider CA' });
  caBundle = Buffer.from(ca.certPem).toString('base64');
  leafBundle = Buffer.from(issueCertificate(ca, { commonName: 'leaf' }).certPem).toString('base64');
});

function provider(spec: Record<string, unknown>, name = 'lookup-svc'): unknown {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ExternalDataProvider',
    metadata: { name, resourceVersion: '7' },
    spec: { url: 'https://svc.ns.svc:8443/keys', caBundle, ...spec },
  };
}

describe('readProvider', () => {
  it('reads a minimal provider with the defaults', () => {
    const read = readProvider(provider({}));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.provider).toMatchObject({
      name: 'lookup-svc',
      resourceVersion: '7',
      url: 'https://svc.ns.svc:8443/keys',
      clientCertSecretName: undefined,
      timeoutMs: 500,
      cacheTTLSeconds: 60,
      failureTTLSeconds: 5,
      allowedNamespaces: [],
    });
    expect(read.provider.caPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it('reads every field', () => {
    const read = readProvider(
      provider({
        clientCertSecretRef: { name: 'provider-client' },
        timeoutMs: 1000,
        cacheTTLSeconds: 3600,
        failureTTLSeconds: 1,
        allowedNamespaces: ['team-a', '*'],
      }),
    );
    expect(read.ok && read.provider).toMatchObject({
      clientCertSecretName: 'provider-client',
      timeoutMs: 1000,
      cacheTTLSeconds: 3600,
      failureTTLSeconds: 1,
      allowedNamespaces: ['team-a', '*'],
    });
  });

  it.each([
    [{ url: 'http://svc/keys' }, 'spec.url', /must be an https:\/\/ URL/],
    [{ url: 'svc:8443' }, 'spec.url', /https/],
    [{ url: 'not a url' }, 'spec.url', /is not a URL/],
    [{ url: 'https://user:pw@svc/' }, 'spec.url', /user name or password/],
    [{ url: `https://svc/${'a'.repeat(3000)}` }, 'spec.url', /longer than 2048/],
    [{ url: undefined }, 'spec.url', /is required/],
    [{ caBundle: '!!!' }, 'spec.caBundle', /must be base64/],
    [{ caBundle: Buffer.from('hello').toString('base64') }, 'spec.caBundle', /no PEM certificate/],
    [{ caBundle: undefined }, 'spec.caBundle', /is required/],
    [{ timeoutMs: 1001 }, 'spec.timeoutMs', /between 1 and 1000, got 1001/],
    [{ timeoutMs: 0 }, 'spec.timeoutMs', /between 1 and 1000/],
    [{ timeoutMs: 1.5 }, 'spec.timeoutMs', /must be an integer/],
    [{ timeoutMs: '500' }, 'spec.timeoutMs', /must be an integer/],
    [{ cacheTTLSeconds: 3601 }, 'spec.cacheTTLSeconds', /between 1 and 3600/],
    [{ failureTTLSeconds: 61 }, 'spec.failureTTLSeconds', /between 1 and 60/],
    [{ clientCertSecretRef: 'x' }, 'spec.clientCertSecretRef', /must be an object/],
    [{ clientCertSecretRef: {} }, 'spec.clientCertSecretRef.name', /is required/],
    [
      { clientCertSecretRef: { name: 'Bad_Name' } },
      'spec.clientCertSecretRef.name',
      /not a Secret/,
    ],
    [{ allowedNamespaces: ['ok', 'Not OK'] }, 'spec.allowedNamespaces[1]', /namespace name/],
    [{ allowedNamespaces: 'team-a' }, 'spec.allowedNamespaces', /must be a list/],
    [{ headers: { Authorization: 'x' } }, 'spec.headers', /unknown field/],
  ])('refuses %j with an error on %s', (spec, field, message) => {
    const read = readProvider(provider(spec));
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.errors.map((e) => e.field)).toContain(field);
    const error = read.errors.find((e) => e.field === field);
    expect(error?.message).toMatch(message);
    expect(error?.code).toBe('KM7010');
  });

  it('refuses a caBundle that holds a leaf certificate, not a CA', () => {
    const read = readProvider(provider({ caBundle: leafBundle }));
    expect(!read.ok && read.errors[0]).toMatchObject({
      field: 'spec.caBundle',
      message: 'certificate 1 is not a CA certificate',
    });
  });

  it('refuses another apiVersion, a missing spec, and reports the name', () => {
    const read = readProvider({ apiVersion: 'v1', metadata: { name: 'p' } });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.name).toBe('p');
    expect(describeProviderErrors(read.name, read.errors)).toBe(
      'ExternalDataProvider p is invalid: apiVersion: must be api.kubemod.io/v1beta1, got "v1"; spec: is required',
    );
  });

  it.each([null, 'text', [], 42])('refuses a non-object %j', (input) => {
    expect(readProvider(input).ok).toBe(false);
  });
});
