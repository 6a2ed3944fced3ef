import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runOperator } from '../../src/cli/operator-command.js';
import { createKubeClient, KubeApiError } from '../../src/kube/kube-client.js';
import { inClusterConnection } from '../../src/kube/kube-connection.js';
import type { RunningOperator } from '../../src/controller/operator.js';
import { kubectl, kubectlApply, kubectlJson, waitFor } from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import { installCrd } from './support/operator-env.js';
import {
  issueToken,
  mountOperatorServiceAccount,
  OPERATOR_SERVICE_ACCOUNT,
} from './support/service-account.js';

// The in-cluster configuration, pointed at the e2e API server: a service-account token issued by
// the API server (TokenRequest) and its CA, laid out in a directory as the kubelet mounts them in
// a Pod, KUBERNETES_SERVICE_HOST/PORT set as in a Pod. The operator then runs with only that
// identity and the permissions of config/rbac, as it does when deployed.

const local = inject('localControlPlane');
const ns = uniqueName('incluster');
const SERVICE_ACCOUNT = OPERATOR_SERVICE_ACCOUNT;
const clusterRole = `${ns}-operator`;
const mutating = `${ns}-mutating`;
const validating = `${ns}-validating`;
let saDir: string;
let env: Readonly<Record<string, string>>;

describe.runIf(local)('the in-cluster configuration against the e2e API server', () => {
  beforeAll(async () => {
    await kubectl(['create', 'namespace', ns]);
    await kubectl(['create', 'serviceaccount', 'other', '-n', ns]);
    ({ dir: saDir, env } = await mountOperatorServiceAccount(ns, clusterRole, {
      'kubemod-mutating-webhook-configuration': mutating,
      'kubemod-validating-webhook-configuration': validating,
    }));
    await installCrd(kubectl);
  });

  afterAll(async () => {
    rmSync(saDir, { recursive: true, force: true });
    await kubectl(['delete', 'clusterrolebinding,clusterrole', clusterRole, '--ignore-not-found']);
    await kubectl(['delete', 'namespace', ns, '--wait=false', '--ignore-not-found']);
  });

  it('authenticates as the service account, with its permissions, and follows a rotated token', async () => {
    let now = Date.now();
    const client = createKubeClient(
      inClusterConnection({ env, serviceAccountDir: saDir, now: () => now }),
    );
    const whoami = async (): Promise<unknown> => {
      const review = await client.request({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      return (review.status as { userInfo: { username: string } }).userInfo.username;
    };
    expect(await whoami()).toBe(`system:serviceaccount:${ns}:${SERVICE_ACCOUNT}`);
    // config/rbac grants ModRules cluster-wide, but not Secrets outside its namespace.
    const listed = await client.request({
      method: 'GET',
      path: '/apis/api.kubemod.io/v1beta1/modrules',
      query: { limit: 1 },
    });
    expect(Array.isArray(listed.items)).toBe(true);
    const forbidden = await client.request({ method: 'GET', path: '/api/v1/secrets' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(forbidden).toBeInstanceOf(KubeApiError);
    expect((forbidden as KubeApiError).statusCode).toBe(403);

    // The kubelet replaces the token file; the next read after a minute picks it up.
    writeFileSync(join(saDir, 'token'), await issueToken(ns, 'other'));
    expect(await whoami()).toBe(`system:serviceaccount:${ns}:${SERVICE_ACCOUNT}`);
    now += 60_000;
    expect(await whoami()).toBe(`system:serviceaccount:${ns}:other`);
    writeFileSync(join(saDir, 'token'), await issueToken(ns, SERVICE_ACCOUNT));
  });

  it('runs the operator without a kubeconfig: synced, leading, statuses written', async () => {
    await kubectlApply({
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: { name: 'in-cluster', namespace: ns },
      spec: {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
        patch: [{ op: 'add', path: '/metadata/labels/seen', value: '"yes"' }],
      },
    });
    const abort = new AbortController();
    const logs: string[] = [];
    let started: (op: RunningOperator) => void = () => undefined;
    const running = new Promise<RunningOperator>((resolve) => {
      started = resolve;
    });
    const exit = runOperator(
      [
        '--namespace',
        ns,
        '--webhook-host',
        '127.0.0.1',
        '--webhook-port',
        '0',
        '--health-port',
        '0',
        '--mutating-webhook',
        mutating,
        '--validating-webhook',
        validating,
        '--lease-duration-ms',
        '4000',
        // No Service in front of a local process: nothing to drain, so no lame-duck delay on stop.
        '--shutdown-delay-ms',
        '0',
        '--log-level',
        'warn',
      ],
      {
        stdout: (text) => logs.push(text),
        stderr: (text) => logs.push(text),
        env,
        serviceAccountDir: saDir,
        signal: abort.signal,
        onStarted: started,
      },
    );
    try {
      const operator = await Promise.race([
        running,
        exit.then((code) => {
          throw new Error(`operator exited with ${String(code)}: ${logs.join('')}`);
        }),
      ]);
      await operator.waitForReady();
      expect(operator.store.get(ns, 'in-cluster')).toBeDefined();
      const ready = await waitFor('the Ready condition written by the operator', async () => {
        const rule = (await kubectlJson(['get', 'modrule', 'in-cluster', '-n', ns])) as {
          status?: { conditions?: { type: string; status: string }[] };
        };
        return rule.status?.conditions?.find((c) => c.type === 'Ready');
      });
      expect(ready.status).toBe('True');
      expect(operator.isLeader()).toBe(true);
      const lease = (await kubectlJson(['get', 'lease', 'kubemod-operator-leader', '-n', ns])) as {
        spec: { holderIdentity?: string };
      };
      expect(lease.spec.holderIdentity).toBeTruthy();
      const secret = (await kubectlJson([
        'get',
        'secret',
        'kubemod-webhook-server-cert',
        '-n',
        ns,
      ])) as { data?: Record<string, string> };
      expect(Object.keys(secret.data ?? {})).toContain('tls.crt');
      // Nothing the operator did at startup was refused.
      expect(logs.join('')).not.toMatch(/forbidden/i);
    } finally {
      abort.abort();
      expect(await exit).toBe(0);
    }
  });
});
