import { execFile } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  echoProvider,
  serverTls,
  startProviderServer,
  type SeenRequest,
  type TestProviderServer,
} from '../../src/external-data/provider-server.test-support.js';
import {
  deleteNamespacesNow,
  kubeconfig,
  kubectl,
  kubectlApply,
  waitFor,
} from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import {
  deleteWebhookConfigurations,
  startOperatorOn,
  type TestOperator,
} from './support/operator-env.js';
import { get } from './support/operator-fixtures.js';

// External data (issue 35, item 5; docs/lookups.md "External data") against the real thing: a
// provider served over TLS on 127.0.0.1 with its own self-signed CA in the ExternalDataProvider's
// caBundle, the real kube-apiserver calling the operator's webhook, and real kubectl. While the
// provider is down, `externalOr` gives its declared default and a rule using `external` with
// failure policy Fail refuses the request; when it is up, both get the provider's value.

const local = inject('localControlPlane');
const ns = uniqueName('ext');
const provider = uniqueName('e2e-provider');
let op: TestOperator;
let server: TestProviderServer;
let up = true;

interface Run {
  readonly code: number;
  readonly stderr: string;
}

function kubectlRun(args: readonly string[], input: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      'kubectl',
      [...args],
      { env: { ...process.env, KUBECONFIG: kubeconfig() }, timeout: 60_000 },
      (error, _stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          stderr,
        });
      },
    );
    child.stdin?.end(input);
  });
}

/** The provider: the echo answers while up; while down, the connection is dropped unanswered. */
function handler(req: SeenRequest, res: ServerResponse): void {
  if (up) echoProvider(req, res);
  else res.socket?.destroy();
}

function labelled(name: string, check: string): object {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, labels: { check } },
    data: { k: 'v' },
  };
}

async function applyRule(
  name: string,
  annotations: Record<string, string>,
  spec: object,
): Promise<void> {
  await kubectlApply({
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace: ns, annotations },
    spec,
  });
  await waitFor(
    `rule ${ns}/${name} loaded`,
    () => (op.operator.store.get(ns, name) ? true : undefined),
    10_000,
    50,
  );
}

/** A Patch rule on ConfigMaps labelled check=<check> that sets label `tier` to `value`. */
function tierRule(check: string, value: string): object {
  return {
    type: 'Patch',
    match: [
      { select: '$.kind', matchValue: 'ConfigMap' },
      { select: '$.metadata.labels.check', matchValue: check },
    ],
    patch: [{ op: 'add', path: '/metadata/labels/tier', value }],
  };
}

async function tierOf(name: string): Promise<string | undefined> {
  return (await get(['configmap', name, '-n', ns])).metadata.labels?.tier;
}

describe.runIf(local)('external data from a TLS provider on loopback', () => {
  beforeAll(async () => {
    const tls = serverTls('e2e-provider');
    server = await startProviderServer(tls, handler);
    await kubectl(['create', 'namespace', ns]);
    op = await startOperatorOn(kubectl, kubeconfig());
    await kubectlApply({
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ExternalDataProvider',
      metadata: { name: provider },
      spec: {
        url: `${server.url}keys`,
        caBundle: Buffer.from(tls.ca.certPem).toString('base64'),
        timeoutMs: 400,
        cacheTTLSeconds: 60,
        failureTTLSeconds: 1,
        allowedNamespaces: [ns],
      },
    });
    await applyRule(
      'tier-or-default',
      {},
      tierRule('or', `{{ externalOr "${provider}" .Target.metadata.name "fallback" }}`),
    );
    await applyRule(
      'tier-required',
      { 'api.kubemod.io/failure-policy': 'Fail' },
      tierRule('must', `{{ external "${provider}" .Target.metadata.name }}`),
    );
  }, 180_000);

  afterAll(async () => {
    await kubectl(['delete', 'externaldataprovider', provider, '--ignore-not-found']).catch(
      () => '',
    );
    await deleteWebhookConfigurations(kubectl).catch(() => undefined);
    await op.stop();
    await server.close();
    await deleteNamespacesNow([ns]);
  }, 120_000);

  it('both rules get the provider’s value while it is up, over one TLS call per key', async () => {
    up = true;
    await kubectlApply(labelled('up-or', 'or'));
    await kubectlApply(labelled('up-must', 'must'));
    expect(await tierOf('up-or')).toBe('value-of-up-or');
    expect(await tierOf('up-must')).toBe('value-of-up-must');
    const calls = server.seen.filter((r) => r.body.includes('"up-'));
    expect(calls.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(calls.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it('while it is down: externalOr gives the declared default, external with Fail refuses', async () => {
    up = false;
    await kubectlApply(labelled('down-or', 'or'));
    expect(await tierOf('down-or')).toBe('fallback');

    const run = await kubectlRun(
      ['apply', '-f', '-'],
      JSON.stringify(labelled('down-must', 'must')),
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`${ns}/tier-required`);
    expect(run.stderr).toMatch(/failure policy Fail/);
    expect(run.stderr).toMatch(new RegExp(`provider down: provider ${provider}`));
    const gone = await kubectlRun(['get', 'configmap', 'down-must', '-n', ns], '');
    expect(gone.code).not.toBe(0);
  });

  it('when it is back, the refused key is asked again after failureTTLSeconds and gets its value', async () => {
    up = true;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await kubectlApply(labelled('down-must', 'must'));
    expect(await tierOf('down-must')).toBe('value-of-down-must');
    await kubectlApply(labelled('back-or', 'or'));
    expect(await tierOf('back-or')).toBe('value-of-back-or');
  });
});
