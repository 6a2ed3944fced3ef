/**
 * The ExternalDataProvider custom resource (issue 35, item 5): a cluster-scoped object an admin
 * creates to let rules read values from an HTTPS service. Types and bounds only; provider-spec.ts
 * reads and checks untrusted objects into these.
 */

export const PROVIDER_GROUP = 'api.kubemod.io';
export const PROVIDER_VERSION = 'v1beta1';
export const PROVIDER_API_VERSION = `${PROVIDER_GROUP}/${PROVIDER_VERSION}`;
export const PROVIDER_KIND = 'ExternalDataProvider';
export const PROVIDER_PLURAL = 'externaldataproviders';

/** apiVersion of the request body sent to a provider (docs/lookups.md, "External data"). */
export const EXTERNAL_DATA_API_VERSION = 'externaldata.kubemod.io/v1';

/** The namespace whose rules may use every provider (and where client-certificate Secrets live). */
export const DEFAULT_SYSTEM_NAMESPACE = 'kubemod-system';

/** Bounds of the spec; the CRD's OpenAPI schema states the same numbers. */
export const PROVIDER_LIMITS = {
  defaultTimeoutMs: 500,
  maxTimeoutMs: 1_000,
  defaultCacheTTLSeconds: 60,
  maxCacheTTLSeconds: 3_600,
  defaultFailureTTLSeconds: 5,
  maxFailureTTLSeconds: 60,
  /** Longest URL accepted (it is sent in every call, and printed in reasons). */
  maxUrlLength: 2_048,
  /** Largest decoded caBundle (a handful of PEM certificates). */
  maxCaBundleBytes: 64 * 1024,
  /** allowedNamespaces entries at most. */
  maxAllowedNamespaces: 256,
  /** A response body larger than this aborts the call. */
  maxResponseBytes: 64 * 1024,
  /** Keys sent in one call at most; more are split into several calls. */
  maxKeysPerCall: 100,
  /** Longest key accepted (longer asks are refused without a call). */
  maxKeyLength: 1_024,
  /** Nesting of a provider's response JSON at most. */
  maxResponseDepth: 32,
} as const;

/** A provider as the operator uses it: read, checked and defaulted. */
export interface ExternalDataProvider {
  /** metadata.name: what rules name in `external "<name>" "<key>"`. */
  readonly name: string;
  /** metadata.resourceVersion (''), so a changed object replaces cached answers. */
  readonly resourceVersion: string;
  /** https URL the keys are POSTed to. */
  readonly url: string;
  /** PEM certificates: the only roots trusted for the provider's server certificate. */
  readonly caPem: string;
  /** Name of a kubernetes.io/tls Secret in the operator's namespace, if a client cert is sent. */
  readonly clientCertSecretName: string | undefined;
  readonly timeoutMs: number;
  readonly cacheTTLSeconds: number;
  readonly failureTTLSeconds: number;
  /**
   * Namespaces whose rules may use the provider, besides the operator's own namespace (whose
   * rules always may). Empty: only cluster-wide rules. `*` in the list: every namespace.
   */
  readonly allowedNamespaces: readonly string[];
}

/** A client certificate and its key, PEM (from the provider's kubernetes.io/tls Secret). */
export interface ClientCertificate {
  readonly certPem: string;
  readonly keyPem: string;
}
