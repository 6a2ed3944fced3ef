import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  deleteNamespacesNow,
  kubeconfig,
  kubectl,
  kubectlApply,
  kubectlJson,
  waitFor,
} from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import {
  deleteWebhookConfigurations,
  startOperatorOn,
  type TestOperator,
} from './support/operator-env.js';

// Issue 37, finding 10: the webhook port does not authenticate its caller, so anyone who reaches
// it can post a pods/binding AdmissionReview. The operator must annotate a Pod with
// ref.kubemod.io/nodename only when the API server confirms the binding (the live Pod's
// spec.nodeName), never with a node a forged review names. kube-scheduler's real bindings still
// annotate. The operator runs in-process with URL-based webhooks, as in workloads.e2e.test.ts.

const INJECT = 'ref.kubemod.io/inject-node-ref';
const NODENAME = 'ref.kubemod.io/nodename';

interface Pod {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: { nodeName?: string };
}

const local = inject('localControlPlane');
let op: TestOperator;
let ns: string;

function pod(name: string, options: { unschedulable?: boolean } = {}): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, annotations: { [INJECT]: 'true' } },
    spec: {
      containers: [{ name: 'main', image: 'nginx:1.25' }],
      // No Node has this label: kube-scheduler never binds the Pod.
      ...(options.unschedulable === true
        ? { nodeSelector: { 'kubemod.test/no-such-node': 'true' } }
        : {}),
    },
  };
}

/** What an attacker posts straight to the operator's webhook port (not through the API server). */
function forgedBindingReview(podName: string, nodeName: string): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: uniqueName('forged'),
      kind: { group: '', version: 'v1', kind: 'Binding' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'binding',
      requestKind: { group: '', version: 'v1', kind: 'Binding' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      requestSubResource: 'binding',
      name: podName,
      namespace: ns,
      operation: 'CREATE',
      userInfo: { username: 'system:serviceaccount:tenant:default' },
      object: {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: podName, namespace: ns },
        target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
      },
      dryRun: false,
    },
  });
}

/** POSTs to the operator's webhook port as any client in the cluster could (no client cert). */
function postToWebhook(path: string, body: string): Promise<{ status: number; text: string }> {
  const url = new URL(path, op.urlBase);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        rejectUnauthorized: false,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function getPod(name: string): Promise<Pod> {
  return (await kubectlJson(['get', 'pod', name, '-n', ns])) as Pod;
}

/** Sends the forged review and waits until the operator has logged what it made of it. */
async function forge(podName: string, nodeName: string): Promise<void> {
  const answer = await postToWebhook('/podbinding-webhook', forgedBindingReview(podName, nodeName));
  expect(answer.status).toBe(200);
  await waitFor(
    `the operator to judge the forged binding of ${ns}/${podName}`,
    async () => {
      const current = await getPod(podName);
      if (current.metadata.annotations?.[NODENAME] === nodeName) return true;
      return op.logs.some((line) => line.includes(`${ns}/${podName}`) && line.includes(nodeName))
        ? true
        : undefined;
    },
    30_000,
  );
}

describe.runIf(local)('pods/binding reviews not sent by the API server (issue 37)', () => {
  beforeAll(async () => {
    op = await startOperatorOn(kubectl, kubeconfig());
    ns = uniqueName('binding');
    await kubectl(['create', 'namespace', ns]);
  });

  afterAll(async () => {
    await deleteWebhookConfigurations(kubectl).catch(() => undefined);
    expect(await op.stop()).toBe(0);
    await deleteNamespacesNow([ns]).catch(() => undefined);
  });

  it('a forged binding review does not annotate a Pending Pod that opted in', async () => {
    await kubectlApply(pod('pending', { unschedulable: true }));
    await forge('pending', 'attacker-chosen-node');

    const current = await getPod('pending');
    expect(current.spec.nodeName).toBeUndefined();
    expect(current.metadata.annotations?.[NODENAME]).toBeUndefined();
  });

  it("kube-scheduler's binding annotates the Pod; a forged one naming another node does not change it", async () => {
    await kubectlApply(pod('scheduled'));
    const bound = await waitFor(
      'the Pod bound by kube-scheduler and annotated with its node',
      async () => {
        const current = await getPod('scheduled');
        return current.spec.nodeName !== undefined &&
          current.metadata.annotations?.[NODENAME] !== undefined
          ? current
          : undefined;
      },
      60_000,
    );
    const nodeName = bound.spec.nodeName ?? '';
    expect(inject('harnessNodes')).toContain(nodeName);
    expect(bound.metadata.annotations?.[NODENAME]).toBe(nodeName);

    await forge('scheduled', 'attacker-chosen-node');
    const after = await getPod('scheduled');
    expect(after.spec.nodeName).toBe(nodeName);
    expect(after.metadata.annotations?.[NODENAME]).toBe(nodeName);
  });
});
