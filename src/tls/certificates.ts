import { generateKeyPair, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

/** A PEM-encoded RSA key pair (PKCS#8 private key, SPKI public key). */
export interface KeyPairPem {
  readonly privateKeyPem: string;
  readonly publicKeyPem: string;
}

/** A PEM-encoded certificate together with the PEM-encoded private key it certifies. */
export interface CertificateBundle {
  readonly certPem: string;
  readonly keyPem: string;
}

export type CertificateUsage = 'server' | 'client';

export interface CertificateAuthorityOptions {
  readonly commonName: string;
  readonly organization?: readonly string[];
  /** Lifetime from now, in milliseconds. Defaults to 10 years. */
  readonly validityMs?: number;
  /** RSA modulus length. Defaults to 2048. */
  readonly keyBits?: number;
}

export interface LeafCertificateOptions {
  readonly commonName: string;
  /** Subject O= attributes; Kubernetes maps them to the groups of a client certificate. */
  readonly organization?: readonly string[];
  readonly dnsNames?: readonly string[];
  /** IPv4 or IPv6 addresses added as IP SANs. */
  readonly ipAddresses?: readonly string[];
  /** Extended key usages. Defaults to `['server']`. */
  readonly usages?: readonly CertificateUsage[];
  /** Lifetime from now, in milliseconds. Defaults to 1 year. */
  readonly validityMs?: number;
  /** RSA modulus length. Defaults to 2048. */
  readonly keyBits?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_CA_VALIDITY_MS = 10 * 365 * DAY_MS;
const DEFAULT_LEAF_VALIDITY_MS = 365 * DAY_MS;
/** Back-date certificates slightly so small clock skews between processes do not matter. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** PKCS#8 private key and SPKI public key, both PEM. */
function rsaPemOptions(modulusLength: number): {
  modulusLength: number;
  publicKeyEncoding: { type: 'spki'; format: 'pem' };
  privateKeyEncoding: { type: 'pkcs8'; format: 'pem' };
} {
  return {
    modulusLength,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  };
}

/**
 * Generates an RSA key pair with Node's native implementation (forge's pure-JS keygen is far
 * too slow for tests).
 */
export function generateRsaKeyPair(modulusLength = 2048): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', rsaPemOptions(modulusLength));
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/**
 * {@link generateRsaKeyPair} on libuv's thread pool: a 2048-bit key takes 50–300 ms of CPU, which
 * a starting operator spends beside its first lists instead of before them.
 */
export function generateRsaKeyPairAsync(modulusLength = 2048): Promise<KeyPairPem> {
  return new Promise((resolve, reject) => {
    generateKeyPair('rsa', rsaPemOptions(modulusLength), (err, publicKey, privateKey) => {
      if (err === null) resolve({ privateKeyPem: privateKey, publicKeyPem: publicKey });
      else reject(err);
    });
  });
}

/** Creates a self-signed certificate authority (with `keys` when given, else a new key pair). */
export function createCertificateAuthority(
  options: CertificateAuthorityOptions,
  keys: KeyPairPem = generateRsaKeyPair(options.keyBits),
): CertificateBundle {
  const cert = newCertificate(
    forge.pki.publicKeyFromPem(keys.publicKeyPem),
    options.validityMs ?? DEFAULT_CA_VALIDITY_MS,
  );
  const subject = subjectAttributes(options.commonName, options.organization);
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  signSha256Rsa(cert, keys.privateKeyPem);
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privateKeyPem };
}

/** Issues a leaf (server and/or client) certificate signed by `ca` (for `keys`, else a new pair). */
export function issueCertificate(
  ca: CertificateBundle,
  options: LeafCertificateOptions,
  keys: KeyPairPem = generateRsaKeyPair(options.keyBits),
): CertificateBundle {
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const cert = newCertificate(
    forge.pki.publicKeyFromPem(keys.publicKeyPem),
    options.validityMs ?? DEFAULT_LEAF_VALIDITY_MS,
  );
  cert.setSubject(subjectAttributes(options.commonName, options.organization));
  cert.setIssuer(caCert.subject.attributes);

  const usages = options.usages ?? ['server'];
  if (usages.length === 0) {
    throw new Error('a leaf certificate needs at least one usage (server or client)');
  }
  const altNames = [
    ...(options.dnsNames ?? []).map((value) => ({ type: 2, value })),
    ...(options.ipAddresses ?? []).map((ip) => ({ type: 7, ip: checkedIp(ip) })),
  ];
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    {
      name: 'extKeyUsage',
      serverAuth: usages.includes('server'),
      clientAuth: usages.includes('client'),
    },
    ...(altNames.length > 0 ? [{ name: 'subjectAltName', altNames }] : []),
    { name: 'subjectKeyIdentifier' },
    {
      name: 'authorityKeyIdentifier',
      keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes(),
    },
  ]);
  signSha256Rsa(cert, ca.keyPem);
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privateKeyPem };
}

interface ForgeTbs {
  getTBSCertificate(cert: forge.pki.Certificate): forge.asn1.Asn1;
}

/**
 * What forge's `cert.sign(key, sha256)` does, with the RSA signature made by Node's native crypto
 * (forge's pure-JS private-key operation costs tens of milliseconds of main-thread CPU).
 */
function signSha256Rsa(cert: forge.pki.Certificate, privateKeyPem: string): void {
  const oid = forge.pki.oids.sha256WithRSAEncryption;
  if (oid === undefined) throw new Error('node-forge lacks the sha256WithRSAEncryption OID');
  cert.signatureOid = oid;
  cert.siginfo.algorithmOid = oid;
  // forge's own typings omit getTBSCertificate; certificateToPem reuses the cached tbsCertificate.
  const tbs = (forge.pki as unknown as ForgeTbs).getTBSCertificate(cert);
  cert.tbsCertificate = tbs;
  const der = Buffer.from(forge.asn1.toDer(tbs).getBytes(), 'binary');
  cert.signature = sign('sha256', der, privateKeyPem).toString('binary');
}

function newCertificate(publicKey: forge.pki.PublicKey, validityMs: number): forge.pki.Certificate {
  if (!Number.isFinite(validityMs) || validityMs <= 0) {
    throw new Error(`certificate validity must be a positive duration, got ${String(validityMs)}`);
  }
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = randomSerialNumber();
  const now = Date.now();
  cert.validity.notBefore = new Date(now - CLOCK_SKEW_MS);
  cert.validity.notAfter = new Date(now + validityMs);
  return cert;
}

/**
 * 128 random bits, hex-encoded. The first byte is forced into 0x01..0x7f so the DER INTEGER is
 * positive and minimally encoded (Go's x509 parser rejects both negative and padded serials).
 */
function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString('hex');
}

function subjectAttributes(
  commonName: string,
  organization: readonly string[] = [],
): forge.pki.CertificateField[] {
  if (commonName.length === 0) {
    throw new Error('certificate commonName must not be empty');
  }
  return [
    { name: 'commonName', value: commonName },
    ...organization.map((value) => ({ name: 'organizationName', value })),
  ];
}

function checkedIp(ip: string): string {
  if (isIP(ip) === 0) {
    throw new Error(`invalid IP address for a certificate SAN: ${ip}`);
  }
  return ip;
}
