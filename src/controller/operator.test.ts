import { describe, expect, it } from 'vitest';
import { parseOperatorArgs } from '../cli/operator-config.js';
import type { JsonObject } from '../engine/json.js';
import { createSilentLogger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { FakeKube } from '../kube/fake-kube.test-support.js';
import { sleepWithSignal } from '../kube/informer.js';
import { KubeApiError, type KubeRequest, type WatchHandle } from '../kube/kube-client.js';
import type { OperatorConfig } from './operator-settings.js';
import { startOperator, type OperatorRuntime } from './operator.js';

const SECRETS = '/api/v1/namespaces/kubemod-system/secrets';

function config(lookupKinds = 'none'): OperatorConfig {
  const parsed = parseOperatorArgs(
    [
      '--kubeconfig',
      '/nonexistent/kubeconfig',
      '--webhook-host',
      '127.0.0.1',
      '--webhook-port',
      '0',
      '--lookup-kinds',
      lookupKinds,
    ],
    {},
  );
  if (parsed.kind !== 'config') throw new Error('unexpected help');
  // No health server: these tests are about the webhook's certificate and the informers.
  return { ...parsed.config, healthPort: -1 };
}

/** A fake API server whose Secret calls go through `secrets`, and which counts open watches. */
class ScriptedKube extends FakeKube {
  openWatches = 0;
  /** Resolves before the Namespaces list is answered (to hold the initial sync). */
  namespacesListed: Promise<void> = Promise.resolve();
  /** Resolves before the ConfigMaps list (a lookup cache) is answered. */
  configMapsListed: Promise<void> = Promise.resolve();
  /** What SelfSubjectAccessReviews answer. */
  selfAllowed = true;
  constructor(private readonly secrets: (req: KubeRequest) => Promise<JsonObject> | undefined) {
    super();
  }

  override async list(
    path: string,
    query: Record<string, string>,
    onItem: (item: JsonObject, head: JsonObject) => void,
  ): Promise<JsonObject> {
    if (path === '/api/v1/namespaces') await this.namespacesListed;
    if (path === '/api/v1/configmaps') await this.configMapsListed;
    return super.list(path, query, onItem);
  }

  override request(req: KubeRequest): Promise<JsonObject> {
    if (req.path.endsWith('/selfsubjectaccessreviews')) {
      this.calls.push(`${req.method} ${req.path}`);
      return Promise.resolve({ status: { allowed: this.selfAllowed } });
    }
    const scripted = req.path.startsWith(SECRETS) ? this.secrets(req) : undefined;
    if (scripted === undefined) return super.request(req);
    this.calls.push(`${req.method} ${req.path}`);
    return scripted;
  }

  override watch(): WatchHandle {
    this.openWatches += 1;
    return {
      stop: () => {
        this.openWatches -= 1;
      },
      done: new Promise(() => undefined),
    };
  }
}

function runtime(kube: FakeKube): OperatorRuntime {
  return {
    client: kube,
    logger: createSilentLogger(),
    metrics: createMetrics(),
    now: Date.now,
    // Real timers, but short: the certificate's 30 attempts back off for milliseconds, not minutes.
    delay: (ms, signal) => sleepWithSignal(Math.min(ms, 2), signal),
  };
}

describe('startOperator', () => {
  it('lists the ModRules while the webhook certificate is still being made', async () => {
    let releaseSecret: () => void = () => undefined;
    const secretHeld = new Promise<void>((resolve) => {
      releaseSecret = resolve;
    });
    let listsBeforeSecret = -1;
    const kube: ScriptedKube = new ScriptedKube((req) => {
      const certificate = req.path.endsWith('/kubemod-webhook-server-cert');
      if (req.method !== 'GET' || !certificate || listsBeforeSecret >= 0) return undefined;
      // The first read of the Secret waits until every informer has listed.
      return (async (): Promise<JsonObject> => {
        await secretHeld;
        listsBeforeSecret = kube.calls.filter((c) => c.startsWith('LIST')).length;
        throw new KubeApiError(404, 'not found');
      })();
    });
    const starting = startOperator(config(), runtime(kube));
    // Seven informers (ModRules, Namespaces, Nodes, the Secret, two webhook configurations,
    // ExternalDataProviders).
    for (let i = 0; i < 100 && kube.calls.filter((c) => c.startsWith('LIST')).length < 7; i++)
      await new Promise((resolve) => setImmediate(resolve));
    releaseSecret();
    const operator = await starting;
    try {
      expect(listsBeforeSecret).toBe(7);
      expect(operator.ready()).toBe(true);
      expect(kube.calls).toContain(`POST ${SECRETS}`);
    } finally {
      await operator.stop();
    }
    expect(kube.openWatches).toBe(0);
  });

  it('writes ModRule statuses only once the initial sync is complete', async () => {
    const kube = new ScriptedKube(() => undefined);
    const rules = '/apis/api.kubemod.io/v1beta1/namespaces/team-a/modrules';
    // FakeKube lists what was POSTed to the very path listed: the informer's all-namespaces one.
    await kube.request({
      method: 'POST',
      path: '/apis/api.kubemod.io/v1beta1/modrules',
      body: {
        apiVersion: 'api.kubemod.io/v1beta1',
        kind: 'ModRule',
        metadata: { name: 'r1', namespace: 'team-a', generation: 1 },
        spec: { type: 'Reject', match: [{ select: '$.kind', matchValue: 'Pod' }] },
      },
    });
    let releaseNamespaces: () => void = () => undefined;
    kube.namespacesListed = new Promise<void>((resolve) => {
      releaseNamespaces = resolve;
    });
    const starting = startOperator(config(), runtime(kube));
    const statusWrites = (): number =>
      kube.calls.filter((c) => c === `PATCH ${rules}/r1/status`).length;
    // The rule is compiled and the replica leads; the Namespaces list is still on its way.
    for (let i = 0; i < 200 && !kube.calls.some((c) => c.includes('/leases')); i++)
      await new Promise((resolve) => setTimeout(resolve, 1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(kube.calls.some((c) => c.includes('/leases'))).toBe(true);
    expect(statusWrites()).toBe(0);
    releaseNamespaces();
    const operator = await starting;
    try {
      for (let i = 0; i < 200 && statusWrites() === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 1));
      expect(statusWrites()).toBe(1);
      expect(operator.pendingStatusWrites()).toBe(0);
    } finally {
      await operator.stop();
    }
  });

  it('stops everything it started when no certificate can be had', async () => {
    // The author key is read first (and made); the certificate's Secret is forbidden.
    const kube = new ScriptedKube((req) =>
      req.path.startsWith(SECRETS) &&
      req.method !== 'POST' &&
      !req.path.endsWith('/kubemod-author-key')
        ? Promise.reject(new KubeApiError(403, 'forbidden'))
        : undefined,
    );
    await expect(startOperator(config(), runtime(kube))).rejects.toThrow(/forbidden/);
    // 30 attempts, then the informers' watches are closed again.
    expect(
      kube.calls.filter((c) => c === `GET ${SECRETS}/kubemod-webhook-server-cert`),
    ).toHaveLength(30);
    expect(kube.openWatches).toBe(0);
  });

  it('does not listen before the lookup caches have synced', async () => {
    const kube = new ScriptedKube(() => undefined);
    let releaseConfigMaps: () => void = () => undefined;
    kube.configMapsListed = new Promise<void>((resolve) => {
      releaseConfigMaps = resolve;
    });
    let started = false;
    const starting = startOperator(config('ConfigMap,Deployment'), runtime(kube)).then((op) => {
      started = true;
      return op;
    });
    for (let i = 0; i < 200 && !kube.calls.includes('LIST /apis/apps/v1/deployments'); i++)
      await new Promise((resolve) => setTimeout(resolve, 1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toBe(false);
    releaseConfigMaps();
    const operator = await starting;
    try {
      expect(operator.ready()).toBe(true);
    } finally {
      await operator.stop();
    }
  }, 20_000);

  it('does not wait for a lookup kind it may not watch', async () => {
    const kube = new ScriptedKube(() => undefined);
    kube.selfAllowed = false;
    kube.configMapsListed = new Promise<void>(() => undefined);
    const operator = await startOperator(config('ConfigMap'), runtime(kube));
    try {
      expect(operator.ready()).toBe(true);
      expect(kube.calls).not.toContain('LIST /api/v1/configmaps');
    } finally {
      await operator.stop();
    }
  }, 20_000);

  it('reads or makes the author signing key before anything else, in its own Secret (issue 37)', async () => {
    const kube = new ScriptedKube(() => undefined);
    const operator = await startOperator(config(), runtime(kube));
    try {
      expect(kube.calls[0]).toBe(`GET ${SECRETS}/kubemod-author-key`);
      expect(kube.calls[1]).toBe(`POST ${SECRETS}`);
      const made = await kube.request({ method: 'GET', path: `${SECRETS}/kubemod-author-key` });
      expect(made).toMatchObject({ type: 'Opaque', metadata: { name: 'kubemod-author-key' } });
    } finally {
      await operator.stop();
    }
  });
});
