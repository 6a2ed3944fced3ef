import { expect } from 'vitest';
import { kubectl, kubectlApply, kubectlJson, waitFor } from './kubectl.js';
import { podCidrContains } from './real-node-inspect.js';
import { modRule, realNode, SYSTEM_NAMESPACE } from './real-node.js';

// What the real-node e2e files check of an installed operator (the bundle's, the chart's): its
// Pods on the node, and admission through the Service, answered alike by both replicas.

export interface OperatorPod {
  metadata: {
    name: string;
    uid: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
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

export async function operatorPods(): Promise<OperatorPod[]> {
  const list = (await kubectlJson([
    'get',
    'pods',
    '-n',
    SYSTEM_NAMESPACE,
    '-l',
    'app.kubernetes.io/component=operator',
  ])) as { items: OperatorPod[] };
  return list.items;
}

/**
 * Both replicas Running and Ready on the real node, in its Pod range, never restarted, running
 * `image` whose pulled image is one of `digests` (the index or the manifest).
 */
export async function expectReplicasReady(
  image: string,
  digests: readonly string[],
): Promise<void> {
  const pods = await operatorPods();
  expect(pods).toHaveLength(2);
  for (const pod of pods) {
    expect(pod.spec.nodeName).toBe(realNode().name);
    expect(pod.status.phase).toBe('Running');
    expect(pod.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'Ready', status: 'True' }),
    );
    expect(podCidrContains(realNode().podCidr, pod.status.podIP ?? '')).toBe(true);
    expect(pod.spec.containers[0]?.image).toBe(image);
    const status = pod.status.containerStatuses?.[0];
    expect(status?.ready).toBe(true);
    expect(status?.restartCount).toBe(0);
    expect(digests.some((d) => status?.imageID.endsWith(d))).toBe(true);
  }
}

/** A server-side dry-run create of a ConfigMap; resolves its labels or rejects with the error. */
export async function dryRunConfigMap(
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

/** `times` consecutive checks that pass, so both replicas (behind the Service) do. */
export async function consistently(
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

/** The Service's EndpointSlices list both replicas ready. */
export async function readyWebhookEndpoints(): Promise<number> {
  const slices = (await kubectlJson([
    'get',
    'endpointslices',
    '-n',
    SYSTEM_NAMESPACE,
    '-l',
    'kubernetes.io/service-name=kubemod-webhook-service',
  ])) as { items: { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[] }[] };
  return slices.items.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready).length;
}

/**
 * In `ns`, a Patch ModRule stamps ConfigMaps with `stamped-by: <stamp>` and a Reject ModRule
 * refuses those labelled forbidden=yes; both replicas apply both, and a created ConfigMap is
 * stored patched. The ModRules themselves pass the validating webhook (failurePolicy Fail).
 */
export async function expectPatchAndReject(ns: string, stamp: string): Promise<void> {
  await kubectlApply(
    modRule('stamp', ns, {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
      patch: [{ op: 'add', path: '/metadata/labels/stamped-by', value: JSON.stringify(stamp) }],
    }),
  );
  await kubectlApply(
    modRule('refuse', ns, {
      type: 'Reject',
      rejectMessage: `forbidden on the ${stamp}`,
      match: [
        { select: '$.kind', matchValue: 'ConfigMap' },
        { select: '$.metadata.labels.forbidden', matchValue: 'yes' },
      ],
    }),
  );
  await consistently(
    'both replicas to patch',
    8,
    async () => (await dryRunConfigMap(ns, {}))['stamped-by'] === stamp,
  );
  await consistently('both replicas to reject', 8, async () => {
    try {
      await dryRunConfigMap(ns, { forbidden: 'yes' });
      return false;
    } catch (error: unknown) {
      return String(error).includes(`forbidden on the ${stamp}`);
    }
  });
  await kubectl(['create', 'configmap', 'kept', '-n', ns, '--from-literal=a=b']);
  const kept = (await kubectlJson(['get', 'configmap', 'kept', '-n', ns])) as OperatorPod;
  expect(kept.metadata.labels?.['stamped-by']).toBe(stamp);
}
