import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUNDLE_FILE, parseDocuments, type BundleObject } from '../../scripts/bundle-sources.js';
import { PROVIDER_SPEC_FIELDS, readProvider } from '../../src/external-data/provider-spec.js';
import {
  PROVIDER_GROUP,
  PROVIDER_KIND,
  PROVIDER_LIMITS,
  PROVIDER_PLURAL,
  PROVIDER_VERSION,
} from '../../src/external-data/provider-types.js';
import { createCertificateAuthority } from '../../src/tls/certificates.js';

// The ExternalDataProvider CRD of the bundle agrees with src/external-data, and only the operator
// is granted anything on providers (admins create them with their own cluster-wide rights).

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const bundle = (): BundleObject[] =>
  parseDocuments(readFileSync(join(repoRoot, BUNDLE_FILE), 'utf8'), BUNDLE_FILE);

interface Schema {
  readonly type?: string;
  readonly default?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly pattern?: string;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, Schema>>;
}
interface Crd {
  readonly spec: {
    readonly group: string;
    readonly scope: string;
    readonly names: { readonly kind: string; readonly plural: string };
    readonly versions: readonly {
      readonly name: string;
      readonly schema: { openAPIV3Schema: Schema };
    }[];
  };
}

function providerCrd(): Crd {
  const crd = bundle().find(
    (d) =>
      d.kind === 'CustomResourceDefinition' &&
      d.metadata?.name === `${PROVIDER_PLURAL}.${PROVIDER_GROUP}`,
  );
  if (crd === undefined) throw new Error('no ExternalDataProvider CRD in the bundle');
  return crd as unknown as Crd;
}

function specSchema(): Schema {
  const spec = providerCrd().spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
  if (spec === undefined) throw new Error('the CRD has no spec schema');
  return spec;
}

describe('ExternalDataProvider CRD', () => {
  it('is cluster-scoped, with the group, version, kind and plural of src/external-data', () => {
    const crd = providerCrd();
    expect(crd.spec.scope).toBe('Cluster');
    expect(crd.spec.group).toBe(PROVIDER_GROUP);
    expect(crd.spec.names).toMatchObject({ kind: PROVIDER_KIND, plural: PROVIDER_PLURAL });
    expect(crd.spec.versions.map((v) => v.name)).toEqual([PROVIDER_VERSION]);
  });

  it('has the spec fields, defaults and bounds the operator reads', () => {
    const spec = specSchema();
    expect(Object.keys(spec.properties ?? {}).sort()).toEqual([...PROVIDER_SPEC_FIELDS].sort());
    expect(spec.required).toEqual(['url', 'caBundle']);
    const field = (name: string): Schema => spec.properties?.[name] ?? {};
    const L = PROVIDER_LIMITS;
    expect(field('timeoutMs')).toMatchObject({
      default: L.defaultTimeoutMs,
      minimum: 1,
      maximum: L.maxTimeoutMs,
    });
    expect(field('cacheTTLSeconds')).toMatchObject({
      default: L.defaultCacheTTLSeconds,
      minimum: 1,
      maximum: L.maxCacheTTLSeconds,
    });
    expect(field('failureTTLSeconds')).toMatchObject({
      default: L.defaultFailureTTLSeconds,
      minimum: 1,
      maximum: L.maxFailureTTLSeconds,
    });
  });

  it.each([
    ['https://provider.svc:8443/keys', true],
    ['https://10.0.0.1/', true],
    ['http://provider.svc/keys', false],
    ['https://user:pw@provider.svc/', false],
    ['https://provider.svc/#frag', false],
    ['ftp://provider.svc/', false],
  ])('the url pattern and the operator agree on %s', (url, accepted) => {
    const pattern = new RegExp(specSchema().properties?.url?.pattern ?? '^$');
    expect(pattern.test(url)).toBe(accepted);
    const caBundle = Buffer.from(createCertificateAuthority({ commonName: 'ca' }).certPem).toString(
      'base64',
    );
    const read = readProvider({
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ExternalDataProvider',
      metadata: { name: 'p' },
      spec: { url, caBundle },
    });
    expect(read.ok).toBe(accepted);
  });

  it('grants only the operator read access (get/list/watch) to providers, and no one a write', () => {
    interface Rule {
      apiGroups: string[];
      resources: string[];
      verbs: string[];
    }
    const grants = bundle()
      .filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role')
      .flatMap((d) =>
        (d.rules as Rule[])
          .filter((r) => r.resources.includes(PROVIDER_PLURAL) || r.resources.includes('*'))
          .map((r) => ({ role: d.metadata?.name, verbs: r.verbs })),
      );
    expect(grants).toEqual([{ role: 'kubemod-operator', verbs: ['get', 'list', 'watch'] }]);
  });
});
