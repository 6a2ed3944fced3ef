import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { kubectl, kubectlApply, kubectlJson, waitFor } from './kubectl.js';
import { SYSTEM_NAMESPACE, type TestOperator } from './operator-env.js';

/** The parts of stored objects the operator e2e tests look at. */
export interface Obj {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    generation?: number;
  };
  spec?: { template?: { spec?: { containers?: { name: string }[] } } };
  status?: {
    observedGeneration?: number;
    conditions?: { type: string; status: string; reason: string }[];
  };
}

export function modRule(name: string, namespace: string, spec: object): object {
  return {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace },
    spec,
  };
}

export function deployment(
  name: string,
  namespace: string,
  labels: Record<string, string> = { app: name },
): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
      },
    },
  };
}

export function configMap(
  name: string,
  namespace: string,
  labels: Record<string, string> = {},
): object {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels },
    data: { k: 'v' },
  };
}

/** SHA-256 fingerprint of the certificate the webhook server presents. */
export function servedFingerprint(urlBase: string): Promise<string> {
  const url = new URL(urlBase);
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: url.hostname, port: Number(url.port), rejectUnauthorized: false },
      () => {
        const cert = socket.getPeerCertificate();
        socket.end();
        resolve(cert.fingerprint256);
      },
    );
    socket.on('error', reject);
  });
}

export async function secretFingerprint(): Promise<string | undefined> {
  const out = await kubectl([
    'get',
    'secret',
    'kubemod-webhook-server-cert',
    '-n',
    SYSTEM_NAMESPACE,
    '--ignore-not-found',
    '-o',
    'json',
  ]);
  if (out.trim() === '') return undefined;
  const secret = JSON.parse(out) as { data: Record<string, string> };
  return new X509Certificate(Buffer.from(secret.data['tls.crt'] ?? '', 'base64')).fingerprint256;
}

export async function get(args: string[]): Promise<Obj> {
  return (await kubectlJson(['get', ...args])) as Obj;
}

/** Applies a ModRule, queues its deletion in `cleanup` and waits until the operator has loaded it. */
export async function applyRuleTo(
  op: TestOperator,
  cleanup: string[][],
  name: string,
  namespace: string,
  spec: object,
): Promise<void> {
  await kubectlApply(modRule(name, namespace, spec));
  cleanup.push(['delete', 'modrule', name, '-n', namespace, '--ignore-not-found']);
  await waitFor(
    `rule ${namespace}/${name} loaded`,
    () => (op.operator.store.get(namespace, name) ? true : undefined),
    10_000,
    50,
  );
}
