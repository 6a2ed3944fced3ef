import forge from 'node-forge';
import type { KubeClient } from '../kube/kube-client.js';
import { isStatus } from '../kube/kube-client.js';
import type { JsonObject } from '../engine/json.js';
import { KubemodError } from '../errors/catalog.js';
import type { Logger } from '../observability/logger.js';
import {
  createCertificateAuthority,
  generateRsaKeyPairAsync,
  issueCertificate,
} from './certificates.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The webhook's serving certificate as kept in the Secret. */
export interface ServingCertificate {
  readonly certPem: string;
  readonly keyPem: string;
  /** Every CA the API server should trust, newest first (old and new during a rotation). */
  readonly caBundlePem: string;
  readonly notBefore: number;
  readonly notAfter: number;
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
}

export interface CertManagerOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly namespace: string;
  readonly secretName: string;
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  /** Wall clock, ms since epoch. */
  readonly now: () => number;
  /** Lifetime of each serving certificate (default 1 year). */
  readonly validityMs?: number;
  /** Rotate once this fraction of the lifetime has passed (default 2/3). */
  readonly rotateAt?: number;
}

/** The DNS names of the webhook Service, as the API server addresses it. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [
    service,
    `${service}.${namespace}`,
    `${service}.${namespace}.svc`,
    `${service}.${namespace}.svc.cluster.local`,
  ];
}

function splitPemCertificates(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
}

function decode(data: unknown, key: string): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const value = (data as Record<string, unknown>)[key];
  return typeof value === 'string' && value !== ''
    ? Buffer.from(value, 'base64').toString('utf8')
    : undefined;
}

/** Reads a serving certificate out of a Secret; undefined when it is missing or unparseable. */
export function parseCertificateSecret(secret: JsonObject): ServingCertificate | undefined {
  const certPem = decode(secret.data, 'tls.crt');
  const keyPem = decode(secret.data, 'tls.key');
  const caBundlePem = decode(secret.data, 'ca.crt');
  if (certPem === undefined || keyPem === undefined || caBundlePem === undefined) return undefined;
  try {
    const cert = forge.pki.certificateFromPem(certPem);
    forge.pki.privateKeyFromPem(keyPem);
    const altNames =
      (
        cert.getExtension('subjectAltName') as {
          altNames?: { type: number; value?: string; ip?: string }[];
        } | null
      )?.altNames ?? [];
    return {
      certPem,
      keyPem,
      caBundlePem,
      notBefore: cert.validity.notBefore.getTime(),
      notAfter: cert.validity.notAfter.getTime(),
      dnsNames: altNames
        .filter((n) => n.type === 2 && n.value !== undefined)
        .map((n) => n.value ?? ''),
      ipAddresses: altNames
        .filter((n) => n.type === 7 && n.ip !== undefined)
        .map((n) => n.ip ?? ''),
    };
  } catch {
    return undefined;
  }
}

/**
 * Keeps the webhook's CA and serving certificate in a Secret. Any replica may create the Secret
 * (create-if-absent: on 409 it reads the winner's), so replicas converge on one certificate; only
 * the leader rotates it, before expiry, publishing the new CA next to the old one first.
 */
export class CertManager {
  constructor(private readonly options: CertManagerOptions) {}

  private get path(): string {
    return `/api/v1/namespaces/${this.options.namespace}/secrets`;
  }

  /** True when the certificate lacks a required SAN or is past the rotation point of its life. */
  needsRotation(cert: ServingCertificate): boolean {
    const missing =
      this.options.dnsNames.some((n) => !cert.dnsNames.includes(n)) ||
      this.options.ipAddresses.some((ip) => !cert.ipAddresses.includes(ip));
    const rotateAt =
      cert.notBefore + (cert.notAfter - cert.notBefore) * (this.options.rotateAt ?? 2 / 3);
    return missing || this.options.now() >= rotateAt;
  }

  /**
   * A fresh CA and serving certificate; CAs of `previous` that are still valid stay in the bundle.
   * Both keys are generated on the thread pool, side by side, so the event loop stays free.
   */
  async generate(previous?: ServingCertificate): Promise<ServingCertificate> {
    const validityMs = this.options.validityMs ?? 365 * DAY_MS;
    const [caKeys, leafKeys] = await Promise.all([
      generateRsaKeyPairAsync(),
      generateRsaKeyPairAsync(),
    ]);
    const ca = createCertificateAuthority(
      { commonName: 'kubemod-ts-webhook-ca', validityMs: validityMs + DAY_MS },
      caKeys,
    );
    const leaf = issueCertificate(
      ca,
      {
        commonName: this.options.dnsNames[0] ?? 'kubemod-webhook-service',
        dnsNames: this.options.dnsNames,
        ipAddresses: this.options.ipAddresses,
        usages: ['server'],
        validityMs,
      },
      leafKeys,
    );
    const now = this.options.now();
    const keptCas = splitPemCertificates(previous?.caBundlePem ?? '').filter((pem) => {
      try {
        return forge.pki.certificateFromPem(pem).validity.notAfter.getTime() > now;
      } catch {
        return false;
      }
    });
    const caBundlePem = [ca.certPem.trim(), ...keptCas.slice(0, 2)].join('\n') + '\n';
    const cert = forge.pki.certificateFromPem(leaf.certPem);
    return {
      certPem: leaf.certPem,
      keyPem: leaf.keyPem,
      caBundlePem,
      notBefore: cert.validity.notBefore.getTime(),
      notAfter: cert.validity.notAfter.getTime(),
      dnsNames: [...this.options.dnsNames],
      ipAddresses: [...this.options.ipAddresses],
    };
  }

  /** Reads the Secret; undefined when absent. */
  async read(): Promise<{ secret: JsonObject; cert: ServingCertificate | undefined } | undefined> {
    try {
      const secret = await this.options.client.request({
        method: 'GET',
        path: `${this.path}/${this.options.secretName}`,
      });
      return { secret, cert: parseCertificateSecret(secret) };
    } catch (err) {
      if (isStatus(err, 404)) return undefined;
      throw err;
    }
  }

  /**
   * The certificate to serve with at startup: the Secret's when it holds one, otherwise a new one
   * written with create-if-absent semantics (or into the existing, empty Secret).
   */
  async ensure(): Promise<ServingCertificate> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await this.read();
      if (current?.cert !== undefined) return current.cert;
      const fresh = await this.generate();
      try {
        await this.save(current?.secret, fresh);
        this.options.logger.info(
          { secret: this.options.secretName, notAfter: new Date(fresh.notAfter).toISOString() },
          'created the webhook serving certificate',
        );
        return fresh;
      } catch (err) {
        if (!isStatus(err, 409)) throw err;
        // Another replica won the race: read theirs.
      }
    }
    throw new KubemodError(
      'CLUSTER',
      `could not create or read Secret ${this.options.namespace}/${this.options.secretName}`,
    );
  }

  /**
   * Leader only. Rotates when needed: `publishBundle` is awaited with the new bundle (old and new
   * CA) before the Secret switches to the new certificate, so the API server trusts both while
   * the replicas reload. Returns the new certificate, or undefined when no rotation was due.
   */
  async rotateIfNeeded(
    publishBundle: (caBundlePem: string) => Promise<void>,
    serving?: ServingCertificate,
  ): Promise<ServingCertificate | undefined> {
    const current = await this.read();
    if (current?.cert !== undefined && !this.needsRotation(current.cert)) return undefined;
    // A deleted or emptied Secret is recreated; the CA still being served stays trusted meanwhile.
    const fresh = await this.generate(current?.cert ?? serving);
    await publishBundle(fresh.caBundlePem);
    await this.save(current?.secret, fresh);
    this.options.logger.info(
      { secret: this.options.secretName, notAfter: new Date(fresh.notAfter).toISOString() },
      'rotated the webhook serving certificate',
    );
    return fresh;
  }

  /** Creates the Secret (a 409 means another replica won) or updates the existing one. */
  private async save(existing: JsonObject | undefined, cert: ServingCertificate): Promise<void> {
    if (existing === undefined) {
      await this.options.client.request({
        method: 'POST',
        path: this.path,
        body: this.secretBody(cert),
      });
    } else {
      await this.write(existing, cert);
    }
  }

  private async write(existing: JsonObject, cert: ServingCertificate): Promise<void> {
    const meta = (existing.metadata ?? {}) as JsonObject;
    await this.options.client.request({
      method: 'PUT',
      path: `${this.path}/${this.options.secretName}`,
      body: {
        ...this.secretBody(cert),
        metadata: { ...meta, name: this.options.secretName, namespace: this.options.namespace },
      },
    });
  }

  private secretBody(cert: ServingCertificate): JsonObject {
    const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: {
        name: this.options.secretName,
        namespace: this.options.namespace,
        labels: { 'app.kubernetes.io/managed-by': 'kubemod-ts' },
      },
      data: {
        'tls.crt': b64(cert.certPem),
        'tls.key': b64(cert.keyPem),
        'ca.crt': b64(cert.caBundlePem),
      },
    };
  }
}
