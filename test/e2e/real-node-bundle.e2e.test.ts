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
import { containerProcess, podCidrContains } from './support/real-node-inspect.js';

// The bundle installed as users install it (support/real-node.ts: the image pushed by digest to
// a registry, bundle.yaml pinned by the release's script, `kubectl apply -f`, no edits, no URL
// webhooks) on the harness's real node: the operator's Pods run under the kubelet, the API
// server reaches the webhooks through the Service.

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { nodeName?: string; containers: { image: string }[] };
  status: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: {
      containerID?: string;
      imageID: string;
      restartCount: number;
      ready: boolean;
    }[];
  };
}

let bundle: InstalledBundle;
const namespaces: string[] = [];

async function operatorPods(): Promise<Pod[]> {
  const list = (await kubectlJson([
    'get',
    'pods',
    '-n',
    SYSTEM_NAMESPACE,
    '-l',
    'app.kubernetes.io/component=operator',
  ])) as { items: Pod[] };
  return list.items;
}

async function newNamespace(prefix: string): Promise<string> {
  const ns = uniqueName(prefix);
  await kubectl(['create', 'namespace', ns]);
  namespaces.push(ns);
  return ns;
}

/** A server-side dry-run create of a ConfigMap; resolves its labels or rejects with the error. */
async function dryRunConfigMap(
  ns: string,
  labels: Record<string, string>,
): Promise<Record<string, string>> {
  const out = await kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'probe-', namespace: ns, labels },
      data: { a: 'b' },
    }),
  });
  return (
    (JSON.parse(out) as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {}
  );
}

/** `times` consecutive dry runs that satisfy `check`, so both replicas (behind the Service) do. */
async function consistently(
  what: string,
  times: number,
  check: () => Promise<boolean>,
): Promise<void> {
  let streak = 0;
  await waitFor(
    what,
    async () => {
      streak = (await check()) ? streak + 1 : 0;
      return streak >= times ? true : undefined;
    },
    60_000,
    100,
  );
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
    const pods = await operatorPods();
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      expect(pod.spec.nodeName).toBe(realNode().name);
      expect(pod.status.phase).toBe('Running');
      expect(pod.status.conditions).toContainEqual(
        expect.objectContaining({ type: 'Ready', status: 'True' }),
      );
      expect(podCidrContains(realNode().podCidr, pod.status.podIP ?? '')).toBe(true);
      expect(pod.spec.containers[0]?.image).toBe(`${RELEASE_REPOSITORY}@${bundle.digest}`);
      const status = pod.status.containerStatuses?.[0];
      expect(status?.ready).toBe(true);
      expect(status?.restartCount).toBe(0);
      expect([bundle.digest, bundle.manifestDigest].some((d) => status?.imageID.endsWith(d))).toBe(
        true,
      );
    }
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
    const slices = (await kubectlJson([
      'get',
      'endpointslices',
      '-n',
      SYSTEM_NAMESPACE,
      '-l',
      'kubernetes.io/service-name=kubemod-webhook-service',
    ])) as { items: { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }[] };
    const ready = slices.items.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready);
    expect(ready).toHaveLength(2);

    const ns = await newNamespace('real-node-admit');
    // The ModRule itself passes the validating webhook (failurePolicy Fail) through the Service.
    await kubectlApply(
      modRule('stamp', ns, {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
        patch: [{ op: 'add', path: '/metadata/labels/stamped-by', value: '"real-node"' }],
      }),
    );
    await kubectlApply(
      modRule('refuse', ns, {
        type: 'Reject',
        rejectMessage: 'forbidden on the real node',
        match: [
          { select: '$.kind', matchValue: 'ConfigMap' },
          { select: '$.metadata.labels.forbidden', matchValue: 'yes' },
        ],
      }),
    );
    await consistently(
      'both replicas to patch',
      8,
      async () => (await dryRunConfigMap(ns, {}))['stamped-by'] === 'real-node',
    );
    await consistently('both replicas to reject', 8, async () => {
      try {
        await dryRunConfigMap(ns, { forbidden: 'yes' });
        return false;
      } catch (error: unknown) {
        return String(error).includes('forbidden on the real node');
      }
    });
    await kubectl(['create', 'configmap', 'kept', '-n', ns, '--from-literal=a=b']);
    const kept = (await kubectlJson(['get', 'configmap', 'kept', '-n', ns])) as Pod;
    expect(kept.metadata.labels?.['stamped-by']).toBe('real-node');
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
        (JSON.parse(out) as Pod).metadata.annotations?.['ref.kubemod.io/inject-node-ref'] === 'true'
      );
    });
    await kubectlApply(pausePod(ns, 'zoned'));
    const pod = await waitFor(
      'the Pod Running and labelled from its node',
      async () => {
        const p = (await kubectlJson(['get', 'pod', 'zoned', '-n', ns])) as Pod;
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
