import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { isJsonObject, type JsonValue } from '../../src/engine/json.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_NODE_LABELS } from '../cluster/real-node-cluster.js';
import { REGION_LABEL, ZONE_LABEL } from '../cluster/nodes.js';
import {
  deleteNamespacesNow,
  kubectl,
  kubectlApply,
  kubectlJson,
  waitFor,
} from './support/kubectl.js';
import { uniqueName } from './support/names.js';
import {
  installReleasedBundle,
  modRule,
  OPERATOR_DEPLOYMENT,
  realNode,
  RELEASE_REPOSITORY,
  SYSTEM_NAMESPACE,
  waitForOperatorReady,
  type InstalledBundle,
} from './support/real-node.js';
import {
  consistently,
  expectPatchAndReject,
  expectReplicasReady,
  operatorPods,
  readyWebhookEndpoints,
  type OperatorPod,
} from './support/real-node-admission.js';
import { containerProcess } from './support/real-node-inspect.js';

// The bundle installed as users install it (support/real-node.ts: the image pushed by digest to
// a registry, bundle.yaml pinned by the release's script, `kubectl apply -f`, no edits, no URL
// webhooks) on the harness's real node: the operator's Pods run under the kubelet, the API
// server reaches the webhooks through the Service.

let bundle: InstalledBundle;
const namespaces: string[] = [];

async function newNamespace(prefix: string): Promise<string> {
  const ns = uniqueName(prefix);
  await kubectl(['create', 'namespace', ns]);
  namespaces.push(ns);
  return ns;
}

describe('the released bundle on a real node', () => {
  beforeAll(async () => {
    bundle = await installReleasedBundle();
    await waitForOperatorReady();
  });

  afterAll(async () => {
    await deleteNamespacesNow(namespaces);
    await bundle.stopRegistry();
  });

  it('pins the image by the digest it pushed and applies bundle.yaml otherwise unchanged', () => {
    const generated = readFileSync('bundle.yaml', 'utf8');
    const pinnedLine = `          image: ${RELEASE_REPOSITORY}@${bundle.digest}`;
    expect(bundle.bundleText.split('\n')).toContain(pinnedLine);
    expect(bundle.bundleText.replace(pinnedLine, '')).toBe(
      generated.replace(/^ {10}image: ghcr\.io\/kubemod-ts\/kubemod-ts:.*$/m, ''),
    );
    // Every webhook is reached through the Service, none by URL.
    const webhooks = (loadAll(bundle.bundleText) as JsonValue[])
      .filter(isJsonObject)
      .filter((doc) => typeof doc.kind === 'string' && doc.kind.endsWith('WebhookConfiguration'))
      .flatMap((doc) => (Array.isArray(doc.webhooks) ? doc.webhooks : []))
      .filter(isJsonObject);
    expect(webhooks.length).toBeGreaterThanOrEqual(4);
    for (const webhook of webhooks) {
      const clientConfig = isJsonObject(webhook.clientConfig) ? webhook.clientConfig : {};
      expect(clientConfig.url, JSON.stringify(webhook.name)).toBeUndefined();
      expect(clientConfig.service, JSON.stringify(webhook.name)).toBeDefined();
    }
  });

  it('runs both replicas Running and Ready on the node, pulled by digest', async () => {
    await expectReplicasReady(`${RELEASE_REPOSITORY}@${bundle.digest}`, [
      bundle.digest,
      bundle.manifestDigest,
    ]);
  });

  it('runs the operator process as the bundle says: uid 65532, no capabilities, no new privileges, seccomp, read-only root, 512Mi', async () => {
    for (const pod of await operatorPods()) {
      const id = (pod.status.containerStatuses?.[0]?.containerID ?? '').replace(
        /^containerd:\/\//,
        '',
      );
      const proc = containerProcess(realNode().cgroupName, id);
      expect(proc.uid).toBe('65532');
      expect(proc.gid).toBe('65532');
      expect(proc.capEff).toBe('0000000000000000');
      expect(proc.noNewPrivs).toBe('1');
      expect(proc.seccomp).toBe('2');
      expect(proc.rootReadOnly).toBe(true);
      expect(proc.memoryLimitBytes).toBe(512 * 1024 * 1024);
    }
  });

  it('serves admission through the Service: a ModRule patches, another rejects', async () => {
    expect(await readyWebhookEndpoints()).toBe(2);
    await expectPatchAndReject(await newNamespace('real-node-admit'), 'real-node');
    const deployment = (await kubectlJson([
      'get',
      'deployment',
      OPERATOR_DEPLOYMENT,
      '-n',
      SYSTEM_NAMESPACE,
    ])) as {
      status: { readyReplicas: number };
    };
    expect(deployment.status.readyReplicas).toBe(2);
  });

  it('fills the node syntheticRef of a Pod the scheduler binds and the kubelet runs', async () => {
    const ns = await newNamespace('real-node-ref');
    await kubectlApply(
      modRule('inject-node-ref', ns, {
        type: 'Patch',
        admissionOperations: ['CREATE'],
        match: [{ select: '$.kind', matchValue: 'Pod' }],
        patch: [
          {
            op: 'add',
            path: '/metadata/annotations/ref.kubemod.io~1inject-node-ref',
            value: '"true"',
          },
        ],
      }),
    );
    await kubectlApply(
      modRule('node-labels', ns, {
        type: 'Patch',
        admissionOperations: ['UPDATE'],
        match: [
          { select: '$.kind', matchValue: 'Pod' },
          { select: '$.syntheticRefs.node.metadata.labels' },
        ],
        patch: [
          {
            op: 'add',
            path: '/metadata/labels/topology.kubernetes.io~1zone',
            value: `"{{ index .Target.syntheticRefs.node.metadata.labels "${ZONE_LABEL}" }}"`,
          },
          {
            op: 'add',
            path: '/metadata/labels/topology.kubernetes.io~1region',
            value: `"{{ index .Target.syntheticRefs.node.metadata.labels "${REGION_LABEL}" }}"`,
          },
        ],
      }),
    );
    await consistently('both replicas to opt Pods in', 6, async () => {
      const out = await kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], {
        input: JSON.stringify(pausePod(ns, 'probe')),
      });
      return (
        (JSON.parse(out) as OperatorPod).metadata.annotations?.[
          'ref.kubemod.io/inject-node-ref'
        ] === 'true'
      );
    });
    await kubectlApply(pausePod(ns, 'zoned'));
    const pod = await waitFor(
      'the Pod Running and labelled from its node',
      async () => {
        const p = (await kubectlJson(['get', 'pod', 'zoned', '-n', ns])) as OperatorPod;
        return p.status.phase === 'Running' && p.metadata.labels?.[ZONE_LABEL] !== undefined
          ? p
          : undefined;
      },
      90_000,
    );
    expect(pod.spec.nodeName).toBe(realNode().name);
    expect(pod.metadata.annotations?.['ref.kubemod.io/nodename']).toBe(realNode().name);
    expect(pod.metadata.labels?.[ZONE_LABEL]).toBe(REAL_NODE_LABELS[ZONE_LABEL]);
    expect(pod.metadata.labels?.[REGION_LABEL]).toBe(REAL_NODE_LABELS[REGION_LABEL]);
  });
});

/** A Pod of the node's own pause image (imported, never pulled). */
function pausePod(namespace: string, name: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        { name: 'main', image: 'localhost/kubemod-ts/pause:harness', imagePullPolicy: 'Never' },
      ],
    },
  };
}
