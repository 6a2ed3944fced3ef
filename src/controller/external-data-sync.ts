import { describeError } from '../errors/catalog.js';
import type { Logger } from '../observability/logger.js';
import { readClientCertSecret } from '../external-data/client-cert-secret.js';
import { createExternalData, type ExternalData } from '../external-data/external-data.js';
import type { ProviderCaller } from '../external-data/provider-client.js';
import type { ClientCertLoader } from '../external-data/provider-registry.js';
import {
  PROVIDER_GROUP,
  PROVIDER_PLURAL,
  PROVIDER_VERSION,
} from '../external-data/provider-types.js';
import { objectKey, type Informer, type KubeObject } from '../kube/informer.js';
import { isStatus, type KubeClient } from '../kube/kube-client.js';

/** The collection path of ExternalDataProvider objects (cluster-scoped). */
export const PROVIDERS_PATH = `/apis/${PROVIDER_GROUP}/${PROVIDER_VERSION}/${PROVIDER_PLURAL}`;

export interface OperatorExternalDataOptions {
  readonly client: KubeClient;
  /** Makes an informer on a collection path (the operator's, with its error logging). */
  readonly informer: (path: string) => Informer;
  /** The operator's namespace: client-certificate Secrets are read there only. */
  readonly namespace: string;
  /** Rules of this namespace may use every provider. */
  readonly clusterNamespace: string;
  readonly logger: Logger;
  /** Milliseconds, monotonic. */
  readonly now: () => number;
  /** The HTTPS client (tests). */
  readonly caller?: ProviderCaller;
}

export interface OperatorExternalData {
  readonly data: ExternalData;
  readonly informer: Informer;
  /**
   * True once the providers have been listed, or when they cannot be (the CRD is not installed,
   * or the operator may not list it): then no provider exists, which the log says once.
   */
  synced(): boolean;
  waitForSync(): Promise<void>;
}

/**
 * External data in the operator: an informer on ExternalDataProvider objects feeding the provider
 * registry (docs/lookups.md, "External data"), and client certificates read from Secrets in the
 * operator's namespace with a GET when a provider first needs one (the operator may read only the
 * Secrets an admin grants it, by name).
 */
export function createOperatorExternalData(
  options: OperatorExternalDataOptions,
): OperatorExternalData {
  const { client, logger } = options;
  const loadClientCert: ClientCertLoader = async (name) => {
    const path = `/api/v1/namespaces/${options.namespace}/secrets/${encodeURIComponent(name)}`;
    try {
      return readClientCertSecret(
        await client.request({ method: 'GET', path }),
        options.namespace,
        name,
      );
    } catch (err) {
      if (isStatus(err, 403) || isStatus(err, 404))
        throw new Error(
          `client certificate Secret ${options.namespace}/${name} cannot be read (${describeError(err)}); grant the operator get on it (docs/lookups.md)`,
          { cause: err },
        );
      throw err;
    }
  };
  const data = createExternalData({
    systemNamespace: options.clusterNamespace,
    now: options.now,
    loadClientCert,
    ...(options.caller === undefined ? {} : { caller: options.caller }),
    onInvalidProvider: (name, reason) => {
      logger.warn(
        { provider: name, reason },
        'ExternalDataProvider is invalid; rules cannot use it',
      );
    },
    onCall: (provider, outcome, ms, reason) => {
      if (outcome === 'failed')
        logger.warn({ provider, ms, reason }, 'external-data provider call failed');
      else logger.debug({ provider, ms }, 'external-data provider called');
    },
  });
  const informer = options.informer(PROVIDERS_PATH);
  const upsert = (obj: KubeObject): void => {
    data.registry.upsert(obj);
  };
  informer.on('add', upsert);
  informer.on('update', upsert);
  informer.on('delete', (obj) => {
    data.registry.remove(objectKey(obj));
  });
  let absent = false;
  let resolveAbsent: () => void = () => undefined;
  const absentPromise = new Promise<void>((resolve) => {
    resolveAbsent = resolve;
  });
  informer.on('error', (err) => {
    if (absent || informer.synced || !(isStatus(err, 404) || isStatus(err, 403))) return;
    absent = true;
    resolveAbsent();
    logger.warn(
      { resource: PROVIDERS_PATH, err: describeError(err) },
      'ExternalDataProviders cannot be listed (CRD not installed, or no permission): rules see no provider until they can',
    );
  });
  return {
    data,
    informer,
    synced: () => informer.synced || absent,
    waitForSync: () => Promise.race([informer.waitForSync(), absentPromise]),
  };
}
