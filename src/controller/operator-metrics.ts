import { Gauge, type Registry } from 'prom-client';

/** What the operator's own series read at scrape time. */
export interface OperatorStateSources {
  /** Whether this replica holds the leader Lease now. */
  readonly isLeader: () => boolean;
  /** The Secret the serving certificate is kept in (the one label value of the expiry series). */
  readonly certificateSecret: string;
  /** notAfter (ms since epoch) of the certificate the webhook serves; undefined before it has one. */
  readonly certificateNotAfterMs: () => number | undefined;
  /** Whether each of the operator's webhook configurations existed at the leader's last look. */
  readonly webhookConfigurationsPresent: () => ReadonlyMap<string, boolean>;
}

/**
 * Registers the operator's state series on its registry: whether this replica leads, when the
 * certificate it serves expires, and whether its webhook configurations exist. Both are read when Prometheus scrapes, so they cannot go stale,
 * and the expiry series is absent (not 0) until the replica holds a certificate, so an alert on
 * it cannot fire during start-up.
 */
export function registerOperatorMetrics(registry: Registry, sources: OperatorStateSources): void {
  new Gauge({
    name: 'kubemod_leader',
    help: '1 when this replica holds the leader Lease (status writes, certificate rotation, audit), else 0.',
    registers: [registry],
    collect(): void {
      this.set(sources.isLeader() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'kubemod_webhook_certificate_expiry_timestamp_seconds',
    help: 'When the serving certificate the webhook presents expires (Unix time), by the Secret it is kept in.',
    labelNames: ['secret'] as const,
    registers: [registry],
    collect(): void {
      this.reset();
      const notAfter = sources.certificateNotAfterMs();
      if (notAfter !== undefined) this.set({ secret: sources.certificateSecret }, notAfter / 1000);
    },
  });
  new Gauge({
    name: 'kubemod_webhook_configuration_present',
    help: '1 when the webhook configuration exists, 0 when it is missing (admission then runs without ModRules); by configuration name, from the leader only.',
    labelNames: ['configuration'] as const,
    registers: [registry],
    collect(): void {
      this.reset();
      for (const [name, present] of sources.webhookConfigurationsPresent())
        this.set({ configuration: name }, present ? 1 : 0);
    },
  });
}
