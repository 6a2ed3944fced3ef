import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubemodError } from '../errors/catalog.js';
import {
  inClusterConnection,
  kubeconfigConnection,
  TOKEN_REFRESH_MS,
  type KubeConnection,
} from './kube-connection.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kube-connection-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function authorized(connection: KubeConnection): Promise<RequestOptions> {
  const opts: RequestOptions = { headers: {} };
  await connection.authorize(opts);
  return opts;
}

/** TLS material as text (it is set as Buffers). */
function text(value: unknown): string | undefined {
  return Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
}

function headers(opts: RequestOptions): OutgoingHttpHeaders {
  return opts.headers as OutgoingHttpHeaders;
}

/** A kubeconfig with one context; `cluster` and `user` are the entries' bodies (YAML as JSON). */
function kubeconfig(cluster: object, user?: object, extra: object = {}): string {
  return write(
    'config',
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: user === undefined ? [] : [{ name: 'u', user }],
      contexts: [
        { name: 'ctx', context: { cluster: 'c', ...(user === undefined ? {} : { user: 'u' }) } },
      ],
      'current-context': 'ctx',
      ...extra,
    }),
  );
}

function thrown(fn: () => unknown): KubemodError {
  try {
    fn();
  } catch (err) {
    if (err instanceof KubemodError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

describe('kubeconfigConnection', () => {
  it('reads CA, client certificate and key from files relative to the kubeconfig', async () => {
    mkdirSync(join(dir, 'pki'));
    write('pki/ca.crt', 'CA PEM');
    write('pki/admin.crt', 'CERT PEM');
    write('pki/admin.key', 'KEY PEM');
    const connection = kubeconfigConnection(
      kubeconfig(
        { server: 'https://127.0.0.1:6443/', 'certificate-authority': 'pki/ca.crt' },
        { 'client-certificate': 'pki/admin.crt', 'client-key': join(dir, 'pki/admin.key') },
      ),
    );
    expect(connection.server.href).toBe('https://127.0.0.1:6443/');
    const opts = await authorized(connection);
    expect(text(opts.ca)).toBe('CA PEM');
    expect(text(opts.cert)).toBe('CERT PEM');
    expect(text(opts.key)).toBe('KEY PEM');
    expect(headers(opts).Authorization).toBeUndefined();
  });

  it('uses inline data, a token, impersonation, skip-verify and the TLS server name', async () => {
    const b64 = (text: string): string => Buffer.from(text).toString('base64');
    const connection = kubeconfigConnection(
      kubeconfig(
        {
          server: 'https://[::1]:8443',
          'certificate-authority-data': b64('CA'),
          'insecure-skip-tls-verify': true,
          'tls-server-name': 'kubernetes.default',
        },
        { token: 'tok-1', as: 'jane', 'client-certificate-data': b64('CERT') },
      ),
    );
    const opts = await authorized(connection);
    expect(text(opts.ca)).toBe('CA');
    expect(text(opts.cert)).toBe('CERT');
    expect(opts.key).toBeUndefined();
    expect(opts.rejectUnauthorized).toBe(false);
    expect(opts.servername).toBe('kubernetes.default');
    expect(headers(opts)).toEqual({ Authorization: 'Bearer tok-1', 'Impersonate-User': 'jane' });
  });

  it('sends basic auth for username/password users', async () => {
    const connection = kubeconfigConnection(
      kubeconfig({ server: 'https://h' }, { username: 'admin', password: 's3cret' }),
    );
    expect((await authorized(connection)).auth).toBe('admin:s3cret');
  });

  it("runs an exec credential plugin through client-node's authenticator", async () => {
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: 'from-plugin', expirationTimestamp: '2999-01-01T00:00:00Z' },
    };
    const connection = kubeconfigConnection(
      kubeconfig(
        { server: 'https://h' },
        {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: process.execPath,
            args: ['-e', `process.stdout.write(${JSON.stringify(JSON.stringify(credential))})`],
          },
        },
      ),
    );
    expect(headers(await authorized(connection)).Authorization).toBe('Bearer from-plugin');
  });

  it('refuses what it cannot use, naming the file and the field', () => {
    const cases: [() => unknown, RegExp][] = [
      [() => kubeconfigConnection(join(dir, 'missing')), /cannot read the kubeconfig .*missing/],
      [() => kubeconfigConnection(write('bad', 'clusters: [')), /kubeconfig .*bad: /],
      [
        () =>
          kubeconfigConnection(
            kubeconfig({ server: 'https://h' }, undefined, { 'current-context': '' }),
          ),
        /current-context: kubeconfig .*: no current context is set/,
      ],
      [
        () =>
          kubeconfigConnection(
            kubeconfig({ server: 'https://h' }, undefined, { 'current-context': 'other' }),
          ),
        /contexts: .*context "other" is not defined/,
      ],
      [
        () => kubeconfigConnection(kubeconfig({ server: 'http://h:8080' })),
        /clusters\["c"\]\.server: .*only https API servers are supported, not http:/,
      ],
      [
        () =>
          kubeconfigConnection(kubeconfig({ server: 'https://h', 'proxy-url': 'http://p:3128' })),
        /clusters\["c"\]\.proxy-url: .*proxy-url is not supported/,
      ],
      [
        () =>
          kubeconfigConnection(
            kubeconfig({ server: 'https://h', 'certificate-authority': 'nope.crt' }),
          ),
        /clusters\["c"\]: .*cannot read the CA certificate .*nope\.crt/,
      ],
      [() => kubeconfigConnection(kubeconfig({})), /clusters\[0\]\.cluster\.server is missing/],
    ];
    for (const [fn, message] of cases) {
      const err = thrown(fn);
      expect(err.code).toBe('KM7002');
      expect(err.message).toMatch(message);
    }
  });

  it('refuses a context whose user is not defined', () => {
    const path = write(
      'config',
      JSON.stringify({
        clusters: [{ name: 'c', cluster: { server: 'https://h' } }],
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'ghost' } }],
        'current-context': 'ctx',
      }),
    );
    expect(thrown(() => kubeconfigConnection(path)).message).toMatch(
      /^users: .*user "ghost" is not defined/,
    );
  });
});

describe('inClusterConnection', () => {
  const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };

  it('talks to the service host with the mounted CA and token, re-reading the token every minute', async () => {
    write('ca.crt', 'CLUSTER CA');
    write('token', 'token-1\n');
    let now = 1_000;
    const errors: string[] = [];
    const connection = inClusterConnection({
      env,
      serviceAccountDir: dir,
      now: () => now,
      onTokenError: (err) => errors.push(err.message),
    });
    expect(connection.server.href).toBe('https://10.0.0.1/');
    const first = await authorized(connection);
    expect(text(first.ca)).toBe('CLUSTER CA');
    expect(headers(first).Authorization).toBe('Bearer token-1');
    write('token', 'token-2');
    now += TOKEN_REFRESH_MS - 1;
    expect(headers(await authorized(connection)).Authorization).toBe('Bearer token-1');
    now += 1;
    expect(headers(await authorized(connection)).Authorization).toBe('Bearer token-2');
    // A failed re-read keeps the last token and is reported.
    rmSync(join(dir, 'token'));
    now += TOKEN_REFRESH_MS;
    expect(headers(await authorized(connection)).Authorization).toBe('Bearer token-2');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/cannot read the service-account token .*token/);
  });

  it('brackets an IPv6 service host', () => {
    write('ca.crt', 'CA');
    write('token', 't');
    const connection = inClusterConnection({
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' },
      serviceAccountDir: dir,
    });
    expect(connection.server.host).toBe('[fd00::1]:6443');
  });

  it('explains what is missing outside a Pod', () => {
    write('ca.crt', 'CA');
    const noEnv = thrown(() => inClusterConnection({ env: {}, serviceAccountDir: dir }));
    expect(noEnv.code).toBe('KM7002');
    expect(noEnv.message).toMatch(
      /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set/,
    );
    expect(noEnv.message).toMatch(/--kubeconfig/);
    const noToken = thrown(() => inClusterConnection({ env, serviceAccountDir: dir }));
    expect(noToken.message).toMatch(/cannot read the service-account token .*token/);
    write('token', '  \n');
    expect(thrown(() => inClusterConnection({ env, serviceAccountDir: dir })).message).toMatch(
      /service-account token .* is empty/,
    );
    rmSync(join(dir, 'ca.crt'));
    expect(thrown(() => inClusterConnection({ env, serviceAccountDir: dir })).message).toMatch(
      /cannot read the service-account CA certificate .*ca\.crt/,
    );
  });
});
