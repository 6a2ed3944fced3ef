import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import forge from 'node-forge';
import { describe, expect, it } from 'vitest';
import {
  createCertificateAuthority,
  generateRsaKeyPair,
  generateRsaKeyPairAsync,
  issueCertificate,
  type CertificateBundle,
} from './certificates.js';

const ca: CertificateBundle = createCertificateAuthority({ commonName: 'kubemod-test-ca' });

function verifiesAgainst(caPem: string, leafPem: string): boolean {
  const store = forge.pki.createCaStore([caPem]);
  try {
    return forge.pki.verifyCertificateChain(store, [forge.pki.certificateFromPem(leafPem)]);
  } catch {
    return false;
  }
}

describe('generateRsaKeyPair', () => {
  it('returns a PKCS#8 private key and its SPKI public key', () => {
    const keys = generateRsaKeyPair();
    expect(keys.privateKeyPem).toContain('BEGIN PRIVATE KEY');
    const key = createPrivateKey(keys.privateKeyPem);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(forge.pki.publicKeyFromPem(keys.publicKeyPem).n.bitLength()).toBe(2048);
  });

  it('generates on the thread pool, and certificates can be made for given keys', async () => {
    const [caKeys, leafKeys] = await Promise.all([
      generateRsaKeyPairAsync(),
      generateRsaKeyPairAsync(),
    ]);
    expect(caKeys.privateKeyPem).not.toBe(leafKeys.privateKeyPem);
    expect(createPrivateKey(leafKeys.privateKeyPem).asymmetricKeyDetails?.modulusLength).toBe(2048);
    const ownCa = createCertificateAuthority({ commonName: 'given-keys-ca' }, caKeys);
    const leaf = issueCertificate(ownCa, { commonName: 'svc', dnsNames: ['svc'] }, leafKeys);
    expect(ownCa.keyPem).toBe(caKeys.privateKeyPem);
    expect(leaf.keyPem).toBe(leafKeys.privateKeyPem);
    const x509 = new X509Certificate(leaf.certPem);
    expect(x509.checkPrivateKey(createPrivateKey(leafKeys.privateKeyPem))).toBe(true);
    expect(x509.verify(new X509Certificate(ownCa.certPem).publicKey)).toBe(true);
    expect(verifiesAgainst(ownCa.certPem, leaf.certPem)).toBe(true);
    // Signed with another CA's key, the same leaf does not verify.
    expect(x509.verify(new X509Certificate(ca.certPem).publicKey)).toBe(false);
  });
});

describe('createCertificateAuthority', () => {
  it('creates a self-signed CA certificate', () => {
    const x509 = new X509Certificate(ca.certPem);
    expect(x509.ca).toBe(true);
    expect(x509.subject).toBe('CN=kubemod-test-ca');
    expect(x509.issuer).toBe(x509.subject);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(ca.keyPem))).toBe(true);
    expect(verifiesAgainst(ca.certPem, ca.certPem)).toBe(true);
  });

  it('honours the validity duration', () => {
    const shortLived = createCertificateAuthority({ commonName: 'short', validityMs: 60_000 });
    const validTo = new Date(new X509Certificate(shortLived.certPem).validTo).getTime();
    expect(validTo).toBeGreaterThan(Date.now());
    expect(validTo).toBeLessThanOrEqual(Date.now() + 61_000);
  });

  it('rejects a non-positive validity', () => {
    expect(() => createCertificateAuthority({ commonName: 'x', validityMs: 0 })).toThrow(
      /positive/,
    );
  });
});

describe('issueCertificate', () => {
  const server = issueCertificate(ca, {
    commonName: 'webhook.kubemod.svc',
    dnsNames: ['localhost', 'webhook.kubemod.svc'],
    ipAddresses: ['127.0.0.1', '::1'],
    usages: ['server'],
  });

  it('puts DNS and IP SANs into the certificate', () => {
    const x509 = new X509Certificate(server.certPem);
    expect(x509.subjectAltName).toBe(
      'DNS:localhost, DNS:webhook.kubemod.svc, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    expect(x509.checkHost('webhook.kubemod.svc')).toBe('webhook.kubemod.svc');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkHost('example.com')).toBeUndefined();
    expect(x509.ca).toBe(false);
  });

  it('is signed by the CA and its chain verifies', () => {
    const x509 = new X509Certificate(server.certPem);
    expect(x509.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(x509.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(verifiesAgainst(ca.certPem, server.certPem)).toBe(true);

    const otherCa = createCertificateAuthority({ commonName: 'kubemod-test-ca' });
    expect(verifiesAgainst(otherCa.certPem, server.certPem)).toBe(false);
  });

  it('sets the extended key usages that were asked for', () => {
    const serverExt = forge.pki.certificateFromPem(server.certPem).getExtension('extKeyUsage');
    expect(serverExt).toHaveProperty('serverAuth', true);
    expect(serverExt).not.toHaveProperty('clientAuth', true);

    const client = issueCertificate(ca, {
      commonName: 'admin',
      organization: ['system:masters'],
      usages: ['client'],
    });
    const x509 = new X509Certificate(client.certPem);
    expect(x509.subject.split('\n')).toEqual(['CN=admin', 'O=system:masters']);
    expect(x509.subjectAltName).toBeUndefined();
    const clientExt = forge.pki.certificateFromPem(client.certPem).getExtension('extKeyUsage');
    expect(clientExt).toHaveProperty('clientAuth', true);
    expect(clientExt).not.toHaveProperty('serverAuth', true);
  });

  it('produces a key pair and serial that Node TLS accepts', () => {
    expect(() =>
      createSecureContext({ cert: server.certPem, key: server.keyPem, ca: ca.certPem }),
    ).not.toThrow();
    const x509 = new X509Certificate(server.certPem);
    expect(x509.checkPrivateKey(createPrivateKey(server.keyPem))).toBe(true);
    expect(x509.serialNumber).toMatch(/^[0-7][0-9A-F]{31}$/);
    expect(x509.serialNumber).not.toBe(new X509Certificate(ca.certPem).serialNumber);
  });

  it('rejects invalid IP SANs and empty usages', () => {
    expect(() => issueCertificate(ca, { commonName: 'x', ipAddresses: ['not-an-ip'] })).toThrow(
      /invalid IP/,
    );
    expect(() => issueCertificate(ca, { commonName: 'x', usages: [] })).toThrow(/usage/);
  });
});
