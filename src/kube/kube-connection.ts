import { readFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';
import { isIPv6 } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import { load } from 'js-yaml';
// Only client-node's kubeconfig parsing (and, on demand, its authenticators): its index and its
// KubeConfig module import every generated API model, ~70 MB of RSS the operator never uses.
import {
  newClusters,
  newContexts,
  newUsers,
  type Cluster,
  type User,
} from '@kubernetes/client-node/dist/config_types.js';
import { describeError, KubemodError } from '../errors/catalog.js';

/** Where the API server is and how to talk to it: TLS settings and credentials for each request. */
export interface KubeConnection {
  /** The API server's base URL (https). */
  readonly server: URL;
  /** Sets the TLS options and the credentials of one request (credentials may rotate). */
  authorize(opts: RequestOptions): Promise<void>;
}

/** Where a Pod finds its service-account credentials. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** A projected service-account token is re-read this often (as client-go does). */
export const TOKEN_REFRESH_MS = 60_000;

export interface InClusterOptions {
  /** Reads KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Directory holding `token` and `ca.crt`; defaults to {@link SERVICE_ACCOUNT_DIR}. */
  readonly serviceAccountDir?: string;
  /** Clock for the token refresh (ms). */
  readonly now?: () => number;
  /** Told when a token refresh fails and the previous token stays in use. */
  readonly onTokenError?: (err: KubemodError) => void;
}

interface TlsSettings {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly rejectUnauthorized?: boolean;
  readonly servername?: string;
}

/** The interface of client-node's authenticators (exec plugins, auth providers, token files). */
interface Authenticator {
  /** Truthy for the users this authenticator serves (client-node's FileAuth returns a string). */
  isAuthProvider(user: User): unknown;
  applyAuthentication(user: User, opts: RequestOptions): Promise<void>;
}

function configError(source: string, message: string, field?: string): KubemodError {
  return new KubemodError('CLUSTER_CONFIG', `${source}: ${message}`, field);
}

function readFile(source: string, path: string, what: string, field?: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw configError(source, `cannot read the ${what} ${path}: ${describeError(err)}`, field);
  }
}

function httpsServer(source: string, server: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw configError(source, `${JSON.stringify(server)} is not a URL`, field);
  }
  if (url.protocol !== 'https:')
    throw configError(source, `only https API servers are supported, not ${url.protocol}`, field);
  return url;
}

/**
 * Loads client-node's authenticators only for users that need one (exec plugins, auth-provider):
 * certificates, static tokens and in-cluster tokens need none of them.
 */
async function findAuthenticator(user: User): Promise<Authenticator | undefined> {
  if (user.exec == null && user.authProvider == null) return undefined;
  const [azure, gcp, exec, file, oidc] = await Promise.all([
    import('@kubernetes/client-node/dist/azure_auth.js'),
    import('@kubernetes/client-node/dist/gcp_auth.js'),
    import('@kubernetes/client-node/dist/exec_auth.js'),
    import('@kubernetes/client-node/dist/file_auth.js'),
    import('@kubernetes/client-node/dist/oidc_auth.js'),
  ]);
  // The order (and so the precedence) of client-node's KubeConfig.
  const authenticators: Authenticator[] = [
    new azure.AzureAuth(),
    new gcp.GoogleCloudPlatformAuth(),
    new exec.ExecAuth(),
    new file.FileAuth(),
    new oidc.OpenIDConnectAuth(),
  ];
  return authenticators.find((a) => Boolean(a.isAuthProvider(user)));
}

function setHeader(opts: RequestOptions, name: string, value: string): void {
  const headers = opts.headers;
  if (headers === undefined || Array.isArray(headers)) opts.headers = { [name]: value };
  else (headers as OutgoingHttpHeaders)[name] = value;
}

function applyTls(opts: RequestOptions, tls: TlsSettings): void {
  if (tls.ca !== undefined) opts.ca = tls.ca;
  if (tls.cert !== undefined) opts.cert = tls.cert;
  if (tls.key !== undefined) opts.key = tls.key;
  if (tls.rejectUnauthorized !== undefined) opts.rejectUnauthorized = tls.rejectUnauthorized;
  if (tls.servername !== undefined) opts.servername = tls.servername;
}

function objectOrEmpty(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/**
 * The connection a kubeconfig file's current context describes: server, CA (file or data),
 * `insecure-skip-tls-verify`, `tls-server-name`, client certificate, token, basic auth,
 * impersonation, and client-node's exec and auth-provider plugins. Relative file paths are taken
 * from the kubeconfig's directory. `proxy-url` and plain-http servers are refused.
 */
export function kubeconfigConnection(path: string): KubeConnection {
  const source = `kubeconfig ${path}`;
  const text = readFile(source, path, 'kubeconfig', undefined).toString('utf8');
  let doc: Record<string, unknown>;
  let clusters: Cluster[];
  let users: User[];
  let contextName: unknown;
  let context: { cluster: string; user: string | undefined } | undefined;
  try {
    doc = objectOrEmpty(load(text));
    clusters = newClusters(doc.clusters);
    users = newUsers(doc.users);
    contextName = doc['current-context'];
    context = newContexts(doc.contexts).find((c) => c.name === contextName);
  } catch (err) {
    throw configError(source, describeError(err));
  }
  if (typeof contextName !== 'string' || contextName === '')
    throw configError(source, 'no current context is set', 'current-context');
  if (context === undefined)
    throw configError(source, `context ${JSON.stringify(contextName)} is not defined`, 'contexts');
  const clusterName = context.cluster;
  const cluster = clusters.find((c) => c.name === clusterName);
  if (cluster === undefined)
    throw configError(source, `cluster ${JSON.stringify(clusterName)} is not defined`, 'clusters');
  const userName = context.user;
  const user = userName === undefined ? undefined : users.find((u) => u.name === userName);
  if (userName !== undefined && user === undefined)
    throw configError(source, `user ${JSON.stringify(userName)} is not defined`, 'users');

  const clusterField = `clusters[${JSON.stringify(clusterName)}]`;
  const server = httpsServer(source, cluster.server, `${clusterField}.server`);
  if (cluster.proxyUrl != null && cluster.proxyUrl !== '')
    throw configError(source, 'proxy-url is not supported', `${clusterField}.proxy-url`);

  const root = dirname(path);
  const absolute = (file: string): string => (isAbsolute(file) ? file : join(root, file));
  const userField = `users[${JSON.stringify(userName)}]`;
  const material = (
    file: string | undefined | null,
    data: string | undefined | null,
    what: string,
    field: string,
  ): Buffer | undefined => {
    if (file != null && file !== '') return readFile(source, absolute(file), what, field);
    if (data != null && data !== '') return Buffer.from(data, 'base64');
    return undefined;
  };
  const ca = material(cluster.caFile, cluster.caData, 'CA certificate', clusterField);
  const cert = material(user?.certFile, user?.certData, 'client certificate', userField);
  const key = material(user?.keyFile, user?.keyData, 'client key', userField);
  const settings: TlsSettings = {
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
    ...(cluster.skipTLSVerify ? { rejectUnauthorized: false } : {}),
    ...(cluster.tlsServerName == null ? {} : { servername: cluster.tlsServerName }),
  };

  let authenticator: Promise<Authenticator | undefined> | undefined;
  return {
    server,
    async authorize(opts): Promise<void> {
      applyTls(opts, settings);
      if (user === undefined) return;
      if (user.impersonateUser != null) setHeader(opts, 'Impersonate-User', user.impersonateUser);
      if (user.username != null) opts.auth = `${user.username}:${user.password ?? ''}`;
      authenticator ??= findAuthenticator(user);
      const auth = await authenticator;
      if (auth !== undefined) {
        if (opts.headers === undefined || Array.isArray(opts.headers)) opts.headers = {};
        await auth.applyAuthentication(user, opts);
      }
      if (user.token != null && user.token !== '')
        setHeader(opts, 'Authorization', `Bearer ${user.token}`);
    },
  };
}

/**
 * The connection a Pod has: the API server from KUBERNETES_SERVICE_HOST/PORT, verified with the
 * mounted `ca.crt`, authenticated with the mounted (projected, rotating) `token`, which is re-read
 * every {@link TOKEN_REFRESH_MS}. A failed re-read keeps the previous token and is reported.
 */
export function inClusterConnection(options: InClusterOptions): KubeConnection {
  const source = 'in-cluster configuration';
  const host = options.env.KUBERNETES_SERVICE_HOST;
  const port = options.env.KUBERNETES_SERVICE_PORT;
  if (host === undefined || host === '' || port === undefined || port === '')
    throw configError(
      source,
      'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not running in a Pod?); ' +
        'pass --kubeconfig or set $KUBECONFIG to run outside a cluster',
    );
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const server = httpsServer(
    source,
    `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    'KUBERNETES_SERVICE_HOST',
  );
  const ca = readFile(source, join(dir, 'ca.crt'), 'service-account CA certificate');
  const now = options.now ?? Date.now;
  const tokenPath = join(dir, 'token');
  const readToken = (): string => {
    const token = readFile(source, tokenPath, 'service-account token').toString('utf8').trim();
    if (token === '') throw configError(source, `the service-account token ${tokenPath} is empty`);
    return token;
  };
  let token = readToken();
  let readAt = now();
  return {
    server,
    authorize(opts): Promise<void> {
      if (now() - readAt >= TOKEN_REFRESH_MS) {
        readAt = now();
        try {
          token = readToken();
        } catch (err) {
          if (err instanceof KubemodError) options.onTokenError?.(err);
          else throw err;
        }
      }
      opts.ca = ca;
      setHeader(opts, 'Authorization', `Bearer ${token}`);
      return Promise.resolve();
    },
  };
}

/** The part of a client-node KubeConfig that {@link kubeConfigConnection} uses. */
export interface KubeConfigLike {
  getCurrentCluster(): { readonly server: string } | null;
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
}

/**
 * A connection through a loaded client-node KubeConfig, for commands that load the kubeconfig
 * as kubectl does (contexts, $KUBECONFIG lists, ~/.kube/config) and can afford client-node's
 * index. The operator uses {@link kubeconfigConnection} or {@link inClusterConnection}.
 */
export function kubeConfigConnection(kc: KubeConfigLike): KubeConnection {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new KubemodError('CLUSTER', 'the kubeconfig has no current cluster');
  return {
    server: new URL(cluster.server),
    authorize: (opts) => kc.applyToHTTPSOptions(opts),
  };
}
