import { createPrivateKey, X509Certificate } from 'node:crypto';
import { KubemodError } from '../errors/catalog.js';
import type { ClientCertificate } from './provider-types.js';

const TLS_SECRET_TYPE = 'kubernetes.io/tls';

/**
 * Reads a provider's client certificate from a kubernetes.io/tls Secret (untrusted JSON from the
 * API server): `tls.crt` and `tls.key`, base64, PEM inside. Throws an error naming the Secret and
 * what is wrong; never puts key material in the message.
 */
export function readClientCertSecret(
  secret: unknown,
  namespace: string,
  name: string,
): ClientCertificate {
  const where = `client certificate Secret ${namespace}/${name}`;
  const fail = (why: string): never => {
    throw new KubemodError('PROVIDER_CALL', `${where}: ${why}`);
  };
  if (typeof secret !== 'object' || secret === null || Array.isArray(secret))
    return fail('is not an object');
  const { type, data } = secret as { type?: unknown; data?: unknown };
  if (type !== TLS_SECRET_TYPE)
    return fail(`has type ${JSON.stringify(type ?? '')}, must be ${TLS_SECRET_TYPE}`);
  if (typeof data !== 'object' || data === null) return fail('has no data');
  const field = (key: string): string => {
    const value = (data as Record<string, unknown>)[key];
    if (typeof value !== 'string' || value === '') return fail(`has no ${key}`);
    return Buffer.from(value, 'base64').toString('utf8');
  };
  const certPem = field('tls.crt');
  const keyPem = field('tls.key');
  try {
    const cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(keyPem)))
      return fail('tls.key is not the key of tls.crt');
  } catch (err) {
    if (err instanceof KubemodError) throw err;
    return fail('tls.crt or tls.key is not a PEM certificate and key');
  }
  return { certPem, keyPem };
}
