import { describe, expect, it } from 'vitest';
import { FakeKube } from '../kube/fake-kube.test-support.js';
import { createLogger } from '../observability/logger.js';
import { configPath, WebhookCaInjector, type WebhookConfigRef } from './webhook-ca-injector.js';

const MUTATING: WebhookConfigRef = {
  resource: 'mutatingwebhookconfigurations',
  name: 'kubemod-mutating-webhook-configuration',
};
const VALIDATING: WebhookConfigRef = {
  resource: 'validatingwebhookconfigurations',
  name: 'kubemod-validating-webhook-configuration',
};

function setup(): { kube: FakeKube; injector: WebhookCaInjector; lines: () => string[] } {
  const kube = new FakeKube();
  const out: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (l) => out.push(l) } });
  const injector = new WebhookCaInjector({ client: kube, logger, configs: [MUTATING, VALIDATING] });
  const lines = (): string[] => out.splice(0).map((l) => (JSON.parse(l) as { msg: string }).msg);
  return { kube, injector, lines };
}

function store(kube: FakeKube, ref: WebhookConfigRef): void {
  kube.objects.set(configPath(ref), {
    metadata: { name: ref.name, resourceVersion: '1' },
    webhooks: [{ name: 'x.kubemod.io', clientConfig: { caBundle: 'b2xk' } }],
  });
}

describe('WebhookCaInjector: a missing webhook configuration', () => {
  it('is reported once as an error, tracked for the metric, and its return is logged', async () => {
    const { kube, injector, lines } = setup();
    store(kube, MUTATING);
    expect(injector.configurationsPresent().size).toBe(0); // unknown before the first look

    await injector.reconcile('CA');
    expect(Object.fromEntries(injector.configurationsPresent())).toEqual({
      [MUTATING.name]: true,
      [VALIDATING.name]: false,
    });
    const first = lines();
    expect(first.filter((m) => m.startsWith('webhook configuration is missing'))).toHaveLength(1);
    expect(first.join('\n')).toMatch(/admitted without ModRules; re-apply bundle\.yaml/);

    await injector.reconcile('CA'); // still missing: not repeated on every period
    expect(lines().filter((m) => m.includes('missing'))).toEqual([]);

    store(kube, VALIDATING);
    await injector.reconcile('CA');
    expect(injector.configurationsPresent().get(VALIDATING.name)).toBe(true);
    expect(lines()).toContain('webhook configuration is back');
  });

  it('logs it at level error, seen even with --log-level warn', async () => {
    const kube = new FakeKube();
    const raw: string[] = [];
    const logger = createLogger({ level: 'warn', destination: { write: (l) => raw.push(l) } });
    await new WebhookCaInjector({ client: kube, logger, configs: [MUTATING] }).reconcile('CA');
    expect(raw.map((l) => JSON.parse(l) as { level: string; config: string })).toEqual([
      expect.objectContaining({ level: 'error', config: MUTATING.name }),
    ]);
  });
});
