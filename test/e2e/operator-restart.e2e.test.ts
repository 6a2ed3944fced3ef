import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../cluster/control-plane.js';
import { waitFor } from './support/kubectl.js';
import { startOperatorOn, type Kubectl, type TestOperator } from './support/operator-env.js';

// Kills the API server under a running operator and starts it again: the operator's informers
// must reconnect (with backoff) and pick up ModRules created afterwards. Uses a private control
// plane so the shared one is never restarted.

let plane: ControlPlane;
let op: TestOperator;
let kubectl: Kubectl;

function kubectlFor(kubeconfigPath: string): Kubectl {
  return (args, options = {}) =>
    new Promise<string>((resolve, reject) => {
      const child = execFile(
        'kubectl',
        [...args],
        { env: { ...process.env, KUBECONFIG: kubeconfigPath }, timeout: 60_000 },
        (error, stdout, stderr) => {
          if (error)
            reject(
              new Error(`kubectl ${args.join(' ')} failed: ${stderr.trim() || error.message}`),
            );
          else resolve(stdout);
        },
      );
      child.stdin?.end(options.input ?? '');
    });
}

function labelRule(name: string, namespace: string, label: string): string {
  return JSON.stringify({
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace },
    spec: {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
      patch: [{ op: 'add', path: `/metadata/labels/${label}`, value: '"on"' }],
    },
  });
}

async function labelsOf(name: string, namespace: string): Promise<Record<string, string>> {
  const cm = JSON.parse(
    await kubectl(['get', 'configmap', name, '-n', namespace, '-o', 'json']),
  ) as { metadata: { labels?: Record<string, string> } };
  return cm.metadata.labels ?? {};
}

describe.runIf(inject('localControlPlane'))('operator across an API server restart', () => {
  beforeAll(async () => {
    plane = await startControlPlane();
    kubectl = kubectlFor(plane.kubeconfigPath);
    op = await startOperatorOn(kubectl, plane.kubeconfigPath);
    await kubectl(['create', 'namespace', 'restart']);
  });

  afterAll(async () => {
    await op.stop();
    await plane.stop();
  });

  it('reconnects after kube-apiserver is killed and restarted, and applies new ModRules', async () => {
    await kubectl(['apply', '-f', '-'], { input: labelRule('before', 'restart', 'before') });
    await waitFor(
      'rule loaded',
      () => (op.operator.store.get('restart', 'before') ? true : undefined),
      10_000,
      50,
    );

    await plane.restartKubeApiserver(2_000);
    const restarted = Date.now();

    await kubectl(['apply', '-f', '-'], { input: labelRule('after', 'restart', 'after') });
    await waitFor(
      'rule created after the restart is loaded',
      () => (op.operator.store.get('restart', 'after') ? true : undefined),
      30_000,
      100,
    );
    console.log(
      `[operator e2e] new ModRule loaded ${String(Date.now() - restarted)} ms after the API server came back`,
    );
    expect(op.operator.ready()).toBe(true);

    await kubectl(['create', 'configmap', 'probe', '-n', 'restart', '--from-literal=k=v']);
    expect(await labelsOf('probe', 'restart')).toMatchObject({ before: 'on', after: 'on' });
  });
});
