import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerOperatorMetrics } from './operator-metrics.js';

describe('registerOperatorMetrics', () => {
  it('reads leadership and the certificate expiry at scrape time', async () => {
    const registry = new Registry();
    const state: { leader: boolean; notAfter?: number } = { leader: false };
    registerOperatorMetrics(registry, {
      isLeader: () => state.leader,
      certificateSecret: 'kubemod-webhook-server-cert',
      certificateNotAfterMs: () => state.notAfter,
      webhookConfigurationsPresent: () => new Map(),
    });
    const before = await registry.metrics();
    expect(before).toMatch(/^kubemod_leader 0$/m);
    // No certificate yet: no expiry sample at all (a 0 would read as "expired in 1970").
    expect(before).toContain('# TYPE kubemod_webhook_certificate_expiry_timestamp_seconds gauge');
    expect(before).not.toMatch(/^kubemod_webhook_certificate_expiry_timestamp_seconds\{/m);

    state.leader = true;
    state.notAfter = Date.UTC(2027, 0, 1);
    const after = await registry.metrics();
    expect(after).toMatch(/^kubemod_leader 1$/m);
    expect(after).toContain(
      `kubemod_webhook_certificate_expiry_timestamp_seconds{secret="kubemod-webhook-server-cert"} ${String(Date.UTC(2027, 0, 1) / 1000)}`,
    );
  });

  it('reports each webhook configuration as present (1) or missing (0), none before the first look', async () => {
    const registry = new Registry();
    const presence = new Map<string, boolean>();
    registerOperatorMetrics(registry, {
      isLeader: () => true,
      certificateSecret: 's',
      certificateNotAfterMs: () => undefined,
      webhookConfigurationsPresent: () => presence,
    });
    expect(await registry.metrics()).not.toMatch(/^kubemod_webhook_configuration_present\{/m);
    presence.set('kubemod-mutating-webhook-configuration', true);
    presence.set('kubemod-validating-webhook-configuration', false);
    const text = await registry.metrics();
    expect(text).toMatch(
      /^kubemod_webhook_configuration_present\{configuration="kubemod-mutating-webhook-configuration"\} 1$/m,
    );
    expect(text).toMatch(
      /^kubemod_webhook_configuration_present\{configuration="kubemod-validating-webhook-configuration"\} 0$/m,
    );
  });
});
