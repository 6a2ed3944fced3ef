import { beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueCertificate } from '../tls/certificates.js';
import { readClientCertSecret } from './client-cert-secret.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
let crt = '';
let key = '';
let otherKey = '';

beforeAll(() => {
  const ca = createCertificateAuthority({ commonName: 'ca' });
  const cert = issueCertificate(ca, { commonName: 'client', usages: ['client'] });
  crt = cert.certPem;
  key = cert.keyPem;
  otherKey = issueCertificate(ca, { commonName: 'other' }).keyPem;
});

const secret = (data: Record<string, string>, type = 'kubernetes.io/tls'): unknown => ({
  type,
  data,
});

describe('readClientCertSecret', () => {
  it('reads tls.crt and tls.key', () => {
    expect(
      readClientCertSecret(secret({ 'tls.crt': b64(crt), 'tls.key': b64(key) }), 'ns', 's'),
    ).toEqual({ certPem: crt, keyPem: key });
  });

  it.each([
    ['another type', () => secret({}, 'Opaque'), /has type "Opaque", must be kubernetes.io\/tls/],
    ['no data', () => ({ type: 'kubernetes.io/tls' }), /has no data/],
    ['no tls.key', () => secret({ 'tls.crt': b64(crt) }), /has no tls.key/],
    ['garbage', () => secret({ 'tls.crt': b64('x'), 'tls.key': b64('y') }), /not a PEM/],
    [
      'a key that does not match',
      () => secret({ 'tls.crt': b64(crt), 'tls.key': b64(otherKey) }),
      /tls.key is not the key of tls.crt/,
    ],
    ['not an object', () => 'text', /is not an object/],
  ])('refuses %s, naming the Secret and never the key', (_, make, message) => {
    let error: unknown;
    try {
      readClientCertSecret(make(), 'kubemod-system', 'client');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(Error);
    const text = (error as Error).message;
    expect(text).toMatch(/^client certificate Secret kubemod-system\/client: /);
    expect(text).toMatch(message);
    expect(text).not.toContain('PRIVATE KEY');
  });
});
