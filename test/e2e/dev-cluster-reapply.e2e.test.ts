import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/engine/json.js';
import { caBundlePatch } from '../../src/tls/webhook-ca-injector.js';
import { kubectl, kubectlJson } from './support/kubectl.js';
import {
  bundlePath,
  kubectlDiff,
  MUTATING,
  uninstallAll,
  VALIDATING,
} from './support/kubemod-switch.js';
import { uniqueName } from './support/names.js';

// The README's "A local cluster for development": `kubectl apply -f bundle.yaml`, then the
// operator run on this machine with --webhook-url-base, which turns every webhook's service
// reference into a url (the same JSON patch, caBundlePatch, applied here with kubectl). After
// that the bundle cannot simply be re-applied; the README's sequence (delete the two webhook
// configurations, then apply) must bring the cluster back to exactly the bundle.

const CONFIGS = [
  ['mutatingwebhookconfiguration', MUTATING],
  ['validatingwebhookconfiguration', VALIDATING],
] as const;
const URL_BASE = 'https://127.0.0.1:9443';

describe('re-applying bundle.yaml after the local operator ran (README, dev cluster)', () => {
  const namespace = uniqueName('dev-reapply');

  beforeAll(async () => {
    await uninstallAll(namespace);
    await kubectl(['apply', '-f', bundlePath]);
    for (const [kind, name] of CONFIGS) {
      const config = (await kubectlJson(['get', kind, name])) as JsonObject;
      const patch = caBundlePatch(config, Buffer.from('local CA').toString('base64'), URL_BASE);
      await kubectl(['patch', kind, name, '--type=json', '--patch', JSON.stringify(patch)]);
    }
  });

  afterAll(async () => {
    await uninstallAll(namespace);
  });

  it('the operator left url clientConfigs (reproduces the report)', async () => {
    const config = (await kubectlJson(['get', 'mutatingwebhookconfiguration', MUTATING])) as {
      webhooks: { clientConfig: { url?: string; service?: object } }[];
    };
    expect(config.webhooks.map((w) => w.clientConfig.service)).toEqual(
      config.webhooks.map(() => undefined),
    );
    expect(config.webhooks[0]?.clientConfig.url).toMatch(/^https:\/\/127\.0\.0\.1:9443\//);
  });

  it('a plain re-apply is refused and kubectl diff exits 2 (why the README changed)', async () => {
    await expect(kubectl(['apply', '-f', bundlePath])).rejects.toThrow(
      /exactly one of url or service is required/,
    );
    const diff = await kubectlDiff(['-f', bundlePath]);
    expect(diff.code).toBe(2);
  });

  it("the README's sequence restores exactly the bundle's objects", async () => {
    for (const [kind, name] of CONFIGS) await kubectl(['delete', kind, name]);
    await kubectl(['apply', '-f', bundlePath]);
    const diff = await kubectlDiff(['-f', bundlePath]);
    expect(diff.out).toBe('');
    expect(diff.code).toBe(0);
    for (const [kind, name] of CONFIGS) {
      const config = (await kubectlJson(['get', kind, name])) as {
        webhooks: { clientConfig: { url?: string; service?: { name: string } } }[];
      };
      for (const hook of config.webhooks) {
        expect(hook.clientConfig.url).toBeUndefined();
        expect(hook.clientConfig.service?.name).toBe('kubemod-webhook-service');
      }
    }
  });
});
