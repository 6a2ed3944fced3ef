import { describeProviderErrors, readProvider } from './provider-spec.js';
import type { ClientCertificate, ExternalDataProvider } from './provider-types.js';

/** A provider object as the registry holds it: usable, or invalid with the reason. */
export type ProviderEntry =
  | { readonly ok: true; readonly provider: ExternalDataProvider }
  | {
      readonly ok: false;
      readonly name: string;
      readonly version: string;
      readonly reason: string;
    };

/** Reads a provider's client certificate (the operator: a GET of the kubernetes.io/tls Secret). */
export type ClientCertLoader = (secretName: string) => Promise<ClientCertificate>;

export interface ProviderRegistryOptions {
  /** Loads client-certificate Secrets; absent: a provider that names one cannot be called. */
  readonly loadClientCert?: ClientCertLoader;
  /** A certificate is read again after this long (rotation), ms. Default 5 minutes. */
  readonly clientCertRefreshMs?: number;
  /** Milliseconds, monotonic; injected. */
  readonly now: () => number;
  /** Told about each invalid provider object (the operator logs it). */
  readonly onInvalid?: (name: string, reason: string) => void;
  /** Told when a provider's entry changes or goes (the answer cache forgets it). */
  readonly onChange?: (name: string) => void;
}

const DEFAULT_CERT_REFRESH_MS = 5 * 60_000;

/**
 * The ExternalDataProvider objects the operator knows (fed by an informer), checked once when
 * they arrive, and their client certificates, read when first needed and kept a while.
 */
export class ProviderRegistry {
  private readonly entries = new Map<string, ProviderEntry>();
  private readonly certs = new Map<
    string,
    { readonly id: string; readonly at: number; readonly cert: Promise<ClientCertificate> }
  >();

  constructor(private readonly options: ProviderRegistryOptions) {}

  /** An added or updated provider object (untrusted: checked here). */
  upsert(object: unknown): void {
    const read = readProvider(object);
    if (read.ok) {
      this.set(read.provider.name, { ok: true, provider: read.provider });
      return;
    }
    if (read.name === '') return;
    const reason = describeProviderErrors(read.name, read.errors);
    const version = versionOf(object);
    this.set(read.name, { ok: false, name: read.name, version, reason });
    this.options.onInvalid?.(read.name, reason);
  }

  remove(name: string): void {
    this.entries.delete(name);
    this.certs.delete(name);
    this.options.onChange?.(name);
  }

  get(name: string): ProviderEntry | undefined {
    return this.entries.get(name);
  }

  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  /** The provider's client certificate, undefined when it names none; rejects when unreadable. */
  clientCert(provider: ExternalDataProvider): Promise<ClientCertificate | undefined> {
    const secret = provider.clientCertSecretName;
    if (secret === undefined) return Promise.resolve(undefined);
    const load = this.options.loadClientCert;
    if (load === undefined)
      return Promise.reject(new Error(`client certificate Secret ${secret} cannot be read here`));
    const id = `${provider.resourceVersion}\u0000${secret}`;
    const now = this.options.now();
    const refresh = this.options.clientCertRefreshMs ?? DEFAULT_CERT_REFRESH_MS;
    const held = this.certs.get(provider.name);
    if (held?.id === id && now - held.at < refresh) return held.cert;
    const cert = load(secret);
    this.certs.set(provider.name, { id, at: now, cert });
    // A failed read is not kept: the next call reads again (the failure itself is cached by the
    // answer cache for failureTTLSeconds).
    cert.catch(() => {
      if (this.certs.get(provider.name)?.cert === cert) this.certs.delete(provider.name);
    });
    return cert;
  }

  private set(name: string, entry: ProviderEntry): void {
    const old = this.entries.get(name);
    this.entries.set(name, entry);
    if (old !== undefined && versionOfEntry(old) !== versionOfEntry(entry)) {
      this.certs.delete(name);
      this.options.onChange?.(name);
    }
  }
}

function versionOfEntry(entry: ProviderEntry): string {
  return entry.ok ? entry.provider.resourceVersion : entry.version;
}

function versionOf(object: unknown): string {
  if (typeof object !== 'object' || object === null) return '';
  const meta = (object as { metadata?: { resourceVersion?: unknown } }).metadata;
  return typeof meta?.resourceVersion === 'string' ? meta.resourceVersion : '';
}

/** Whether rules of `namespace` may use `provider` (the operator's namespace always may). */
export function mayUse(
  provider: ExternalDataProvider,
  namespace: string,
  systemNamespace: string,
): boolean {
  return (
    namespace === systemNamespace ||
    provider.allowedNamespaces.includes('*') ||
    provider.allowedNamespaces.includes(namespace)
  );
}
