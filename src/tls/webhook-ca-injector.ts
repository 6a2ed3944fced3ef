import type { KubeClient } from '../kube/kube-client.js';
import { isStatus } from '../kube/kube-client.js';
import type { JsonObject } from '../engine/json.js';
import { describeError } from '../errors/catalog.js';
import type { Logger } from '../observability/logger.js';

const ADMISSION_API = '/apis/admissionregistration.k8s.io/v1';

export interface WebhookConfigRef {
  /** `mutatingwebhookconfigurations` or `validatingwebhookconfigurations` */
  readonly resource: 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations';
  readonly name: string;
}

export interface WebhookCaInjectorOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly configs: readonly WebhookConfigRef[];
  /**
   * When set (tests, out-of-cluster runs), every webhook's clientConfig becomes
   * `url: <urlBase><path>` (path from its service reference or current url) instead of a service.
   */
  readonly urlBase?: string;
}

export function configPath(ref: WebhookConfigRef): string {
  return `${ADMISSION_API}/${ref.resource}/${ref.name}`;
}

function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

/** The JSON patch that brings one webhook configuration's clientConfigs to the desired state. */
export function caBundlePatch(
  config: JsonObject,
  caBundleB64: string,
  urlBase: string | undefined,
): JsonObject[] {
  const webhooks = Array.isArray(config.webhooks) ? config.webhooks : [];
  const ops: JsonObject[] = [];
  webhooks.forEach((hook, i) => {
    const clientConfig = asObject(asObject(hook)?.clientConfig) ?? {};
    const base = `/webhooks/${i}/clientConfig`;
    if (clientConfig.caBundle !== caBundleB64)
      ops.push({ op: 'add', path: `${base}/caBundle`, value: caBundleB64 });
    if (urlBase === undefined) return;
    const service = asObject(clientConfig.service);
    const currentUrl = typeof clientConfig.url === 'string' ? clientConfig.url : undefined;
    const path =
      typeof service?.path === 'string'
        ? service.path
        : currentUrl === undefined
          ? '/'
          : new URL(currentUrl).pathname;
    const wantUrl = `${urlBase.replace(/\/$/, '')}${path}`;
    if (service !== undefined) ops.push({ op: 'remove', path: `${base}/service` });
    if (currentUrl !== wantUrl) ops.push({ op: 'add', path: `${base}/url`, value: wantUrl });
  });
  if (ops.length === 0) return [];
  const rv = asObject(config.metadata)?.resourceVersion;
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: typeof rv === 'string' ? rv : '' },
    ...ops,
  ];
}

/**
 * Writes the CA bundle (and, in URL mode, the URL) into the operator's webhook configurations.
 * Idempotent and cheap when nothing changed (one GET per configuration), so it is run on every
 * change of those objects and periodically; re-applying the bundle, which resets caBundle, heals
 * on the next run.
 */
export class WebhookCaInjector {
  private readonly presence = new Map<string, boolean>();

  constructor(private readonly options: WebhookCaInjectorOptions) {}

  /**
   * Whether each configuration existed when this replica last looked (only the leader looks;
   * empty before the first reconcile). A missing one is not recreated: that would need a
   * cluster-wide create on webhook configurations, which the operator is not granted.
   */
  configurationsPresent(): ReadonlyMap<string, boolean> {
    return this.presence;
  }

  /** Returns the number of configurations patched. */
  async reconcile(caBundlePem: string): Promise<number> {
    const b64 = Buffer.from(caBundlePem, 'utf8').toString('base64');
    let patched = 0;
    for (const ref of this.options.configs) {
      try {
        if (await this.reconcileOne(ref, b64)) patched++;
      } catch (err) {
        this.options.logger.warn(
          { config: ref.name, err: describeError(err) },
          'could not update webhook configuration',
        );
      }
    }
    return patched;
  }

  private async reconcileOne(ref: WebhookConfigRef, b64: string): Promise<boolean> {
    let config: JsonObject;
    try {
      config = await this.options.client.request({ method: 'GET', path: configPath(ref) });
    } catch (err) {
      if (isStatus(err, 404)) {
        this.notePresence(ref, false);
        return false;
      }
      throw err;
    }
    this.notePresence(ref, true);
    const patch = caBundlePatch(config, b64, this.options.urlBase);
    if (patch.length === 0) return false;
    try {
      await this.options.client.request({
        method: 'PATCH',
        path: configPath(ref),
        body: patch,
        contentType: 'application/json-patch+json',
      });
    } catch (err) {
      // 422 from the resourceVersion test: someone changed it meanwhile; the next run retries.
      if (isStatus(err, 422) || isStatus(err, 409)) return false;
      throw err;
    }
    this.options.logger.info(
      { config: ref.name },
      'injected the CA bundle into the webhook configuration',
    );
    return true;
  }

  /** Logs when a configuration goes missing (an error: admission runs without it) or returns. */
  private notePresence(ref: WebhookConfigRef, present: boolean): void {
    const before = this.presence.get(ref.name);
    this.presence.set(ref.name, present);
    if (before === present) return;
    if (!present) {
      this.options.logger.error(
        { config: ref.name, resource: ref.resource },
        'webhook configuration is missing: the API server no longer calls this operator for its ' +
          'webhooks, so requests are admitted without ModRules; re-apply bundle.yaml or run ' +
          '`helm upgrade` to restore it (see kubemod_webhook_configuration_present)',
      );
    } else if (before === false) {
      this.options.logger.info({ config: ref.name }, 'webhook configuration is back');
    }
  }
}
