import { X509Certificate } from 'node:crypto';
import { FieldReader } from '../api/field-reader.js';
import type { FieldError } from '../api/modrule-types.js';
import { errorCatalog } from '../errors/catalog.js';
import {
  PROVIDER_API_VERSION,
  PROVIDER_KIND,
  PROVIDER_LIMITS,
  type ExternalDataProvider,
} from './provider-types.js';

export type ProviderReadResult =
  | { readonly ok: true; readonly provider: ExternalDataProvider }
  | { readonly ok: false; readonly name: string; readonly errors: readonly FieldError[] };

/** The fields of an ExternalDataProvider's spec (the CRD's schema has the same). */
export const PROVIDER_SPEC_FIELDS: readonly string[] = [
  'url',
  'caBundle',
  'clientCertSecretRef',
  'timeoutMs',
  'cacheTTLSeconds',
  'failureTTLSeconds',
  'allowedNamespaces',
];
const CODE = errorCatalog.PROVIDER_INVALID.code;
/** A DNS-1123 label (a namespace name), or `*`. */
const NAMESPACE_PATTERN = /^(\*|[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)$/;
/** A DNS-1123 subdomain (a Secret name). */
const SECRET_NAME_PATTERN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Reads an untrusted ExternalDataProvider object (from the API server) into a checked, defaulted
 * provider, or every problem with its field path. The CRD's schema checks most of this too; this
 * is the check that does not depend on the schema having been applied (and parses the caBundle).
 */
export function readProvider(input: unknown): ProviderReadResult {
  const r = new FieldReader(CODE);
  const root = r.object(input, PROVIDER_KIND);
  const meta = r.object(root?.metadata ?? {}, 'metadata');
  const name = typeof meta?.name === 'string' ? meta.name : '';
  if (root === undefined) return { ok: false, name, errors: r.errors };
  if (root.apiVersion !== undefined && root.apiVersion !== PROVIDER_API_VERSION)
    r.fail('apiVersion', `must be ${PROVIDER_API_VERSION}, got ${JSON.stringify(root.apiVersion)}`);
  if (name === '') r.fail('metadata.name', 'is required');
  const rv = typeof meta?.resourceVersion === 'string' ? meta.resourceVersion : '';
  if (root.spec === undefined) r.fail('spec', 'is required');
  const spec = root.spec === undefined ? undefined : r.object(root.spec, 'spec');
  if (spec === undefined) return { ok: false, name, errors: r.errors };
  r.noUnknownFields(spec, PROVIDER_SPEC_FIELDS, 'spec');

  const url = readUrl(r, spec.url);
  const caPem = readCaBundle(r, spec.caBundle);
  const clientCertSecretName = readSecretRef(r, spec.clientCertSecretRef);
  const L = PROVIDER_LIMITS;
  const timeoutMs = readInt(r, spec.timeoutMs, 'spec.timeoutMs', 1, L.maxTimeoutMs);
  const ttl = readInt(r, spec.cacheTTLSeconds, 'spec.cacheTTLSeconds', 1, L.maxCacheTTLSeconds);
  const failTtl = readInt(
    r,
    spec.failureTTLSeconds,
    'spec.failureTTLSeconds',
    1,
    L.maxFailureTTLSeconds,
  );
  const allowedNamespaces = readNamespaces(r, spec.allowedNamespaces);
  if (r.errors.length > 0 || url === undefined || caPem === undefined)
    return { ok: false, name, errors: r.errors };
  return {
    ok: true,
    provider: {
      name,
      resourceVersion: rv,
      url,
      caPem,
      clientCertSecretName,
      timeoutMs: timeoutMs ?? L.defaultTimeoutMs,
      cacheTTLSeconds: ttl ?? L.defaultCacheTTLSeconds,
      failureTTLSeconds: failTtl ?? L.defaultFailureTTLSeconds,
      allowedNamespaces: allowedNamespaces ?? [],
    },
  };
}

/** One line naming the provider and each field error, for logs and lookup reasons. */
export function describeProviderErrors(name: string, errors: readonly FieldError[]): string {
  const list = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return `ExternalDataProvider ${name === '' ? '(unnamed)' : name} is invalid: ${list}`;
}

function readUrl(r: FieldReader, value: unknown): string | undefined {
  const text = r.requiredString(value, 'spec.url');
  if (text === undefined) return undefined;
  if (text.length > PROVIDER_LIMITS.maxUrlLength) {
    r.fail('spec.url', `is longer than ${String(PROVIDER_LIMITS.maxUrlLength)} characters`);
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    r.fail('spec.url', `is not a URL: ${JSON.stringify(text)}`);
    return undefined;
  }
  if (parsed.protocol !== 'https:') {
    r.fail('spec.url', `must be an https:// URL, got ${JSON.stringify(parsed.protocol)}`);
    return undefined;
  }
  if (parsed.username !== '' || parsed.password !== '') {
    r.fail('spec.url', 'must not carry a user name or password');
    return undefined;
  }
  if (parsed.hash !== '') {
    r.fail('spec.url', 'must not have a fragment (#...)');
    return undefined;
  }
  return parsed.toString();
}

function readCaBundle(r: FieldReader, value: unknown): string | undefined {
  const text = r.requiredString(value, 'spec.caBundle');
  if (text === undefined) return undefined;
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    r.fail('spec.caBundle', 'must be base64 (of PEM certificates)');
    return undefined;
  }
  const decoded = Buffer.from(compact, 'base64');
  if (decoded.length > PROVIDER_LIMITS.maxCaBundleBytes) {
    r.fail(
      'spec.caBundle',
      `decodes to more than ${String(PROVIDER_LIMITS.maxCaBundleBytes)} bytes`,
    );
    return undefined;
  }
  const pem = decoded.toString('utf8');
  const blocks = pem.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) {
    r.fail('spec.caBundle', 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
    return undefined;
  }
  for (const [i, block] of blocks.entries()) {
    try {
      const cert = new X509Certificate(block);
      if (!cert.ca) {
        r.fail('spec.caBundle', `certificate ${String(i + 1)} is not a CA certificate`);
        return undefined;
      }
    } catch (err) {
      r.fail(
        'spec.caBundle',
        `certificate ${String(i + 1)} cannot be read: ${err instanceof Error ? err.message : String(err)}`,
      );
      return undefined;
    }
  }
  return blocks.join('\n');
}

function readSecretRef(r: FieldReader, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const ref = r.object(value, 'spec.clientCertSecretRef');
  if (ref === undefined) return undefined;
  r.noUnknownFields(ref, ['name'], 'spec.clientCertSecretRef');
  const name = r.requiredString(ref.name, 'spec.clientCertSecretRef.name');
  if (name === undefined) return undefined;
  if (!SECRET_NAME_PATTERN.test(name)) {
    r.fail('spec.clientCertSecretRef.name', `is not a Secret name: ${JSON.stringify(name)}`);
    return undefined;
  }
  return name;
}

function readInt(
  r: FieldReader,
  value: unknown,
  field: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    r.fail(field, `must be an integer, got ${JSON.stringify(value)}`);
    return undefined;
  }
  if (value < min || value > max) {
    r.fail(field, `must be between ${String(min)} and ${String(max)}, got ${String(value)}`);
    return undefined;
  }
  return value;
}

function readNamespaces(r: FieldReader, value: unknown): string[] | undefined {
  const list = r.optionalArray(value, 'spec.allowedNamespaces');
  if (list === undefined) return undefined;
  if (list.length > PROVIDER_LIMITS.maxAllowedNamespaces) {
    r.fail(
      'spec.allowedNamespaces',
      `has more than ${String(PROVIDER_LIMITS.maxAllowedNamespaces)} entries`,
    );
    return undefined;
  }
  const out: string[] = [];
  for (const [i, item] of list.entries()) {
    const field = `spec.allowedNamespaces[${String(i)}]`;
    if (typeof item !== 'string' || !NAMESPACE_PATTERN.test(item)) {
      r.fail(field, `must be a namespace name or "*", got ${JSON.stringify(item)}`);
      continue;
    }
    out.push(item);
  }
  return out;
}
