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
  SYSTEM_NAMESPACE,
  deleteWebhookConfigurations,
  startOperatorOn,
  type TestOperator,
} from './support/operator-env.js';
import { applyRuleTo } from './support/operator-fixtures.js';

// ModRules on the objects a real cluster makes: kube-controller-manager turns a Deployment into a
// ReplicaSet and the ReplicaSet into Pods (generated names, created by the replicaset
// controller's service account), kube-scheduler binds them to the harness Nodes through
// pods/binding. The operator runs in-process with URL-based webhooks, as in operator.e2e.test.ts.
// No kubelet runs, so Pods stay Pending on their Node; that is all admission needs.

interface Container {
  name: string;
  image?: string;
  env?: { name: string; value?: string }[];
}
interface Meta {
  name: string;
  generateName?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { kind: string; name: string }[];
  deletionTimestamp?: string;
}
interface Pod {
  metadata: Meta;
  spec: { nodeName?: string; containers: Container[] };
  status?: { conditions?: { type: string; status: string }[] };
}
interface ReplicaSet {
  metadata: Meta;
  spec: { replicas?: number };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}
interface Event {
  reason: string;
  message: string;
}

const ZONE = 'topology.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';
const local = inject('localControlPlane');
let op: TestOperator;
const cleanup: string[][] = [];
const namespaces: string[] = [];

function applyRule(name: string, namespace: string, spec: object): Promise<void> {
  return applyRuleTo(op, cleanup, name, namespace, spec);
}

async function newNamespace(prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  await kubectl(['create', 'namespace', name]);
  namespaces.push(name);
  return name;
}

function deployment(
  name: string,
  namespace: string,
  options: { replicas?: number; labels?: Record<string, string>; strategy?: object } = {},
): object {
  const labels = { app: name, ...options.labels };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas: options.replicas ?? 2,
      selector: { matchLabels: { app: name } },
      ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
      },
    },
  };
}

async function podsOf(app: string, namespace: string): Promise<Pod[]> {
  const list = (await kubectlJson(['get', 'pods', '-n', namespace, '-l', `app=${app}`])) as {
    items: Pod[];
  };
  return list.items.filter((pod) => pod.metadata.deletionTimestamp === undefined);
}

/** Waits until `count` Pods of the app exist and kube-scheduler has bound every one. */
function scheduledPods(app: string, namespace: string, count: number): Promise<Pod[]> {
  return waitFor(
    `${String(count)} scheduled Pods of ${namespace}/${app}`,
    async () => {
      const pods = await podsOf(app, namespace);
      return pods.length === count && pods.every((p) => p.spec.nodeName !== undefined)
        ? pods
        : undefined;
    },
    60_000,
  );
}

function firstOf<T>(items: readonly T[]): T {
  const [item] = items;
  if (item === undefined) throw new Error('expected at least one item');
  return item;
}

function ownerOf(pod: Pod): string {
  const owner = pod.metadata.ownerReferences?.find((ref) => ref.kind === 'ReplicaSet');
  if (owner === undefined) throw new Error(`Pod ${pod.metadata.name} has no ReplicaSet owner`);
  return owner.name;
}

/** The sidecar the rule below adds: the agent container, told the name prefix it was given. */
function expectSidecar(pod: Pod): void {
  const replicaSet = ownerOf(pod);
  // The replicaset controller creates Pods with generateName `<replicaset>-`; the API server
  // picks the suffix after admission, so the webhook sees only the prefix.
  expect(pod.metadata.generateName).toBe(`${replicaSet}-`);
  expect(pod.metadata.name).toMatch(new RegExp(`^${replicaSet}-[a-z0-9]{5}$`));
  expect(pod.spec.containers.map((c) => c.name)).toEqual(['main', 'agent']);
  const agent = pod.spec.containers[1];
  expect(agent?.image).toBe('busybox:1.36');
  expect(agent?.env).toEqual([{ name: 'POD_GENERATE_NAME', value: `${replicaSet}-` }]);
}

const sidecarRule = {
  type: 'Patch',
  match: [
    { select: '$.kind', matchValue: 'Pod' },
    { select: '$.metadata.labels.sidecar', matchValue: 'yes' },
    { select: '$.spec.containers[*].name', matchValue: 'agent', negate: true },
  ],
  patch: [
    {
      op: 'add',
      path: '/spec/containers/-1',
      value:
        'name: agent\nimage: busybox:1.36\nenv:\n- name: POD_GENERATE_NAME\n' +
        '  value: "{{ .Target.metadata.generateName }}"',
    },
  ],
};

/**
 * The API server loads webhook configurations asynchronously: a server-side dry-run of a Pod the
 * rules in `namespace` patch shows when requests reach the operator.
 */
async function waitForPodRules(namespace: string, labels: Record<string, string>): Promise<void> {
  const probe = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'probe-', namespace, labels },
    spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
  };
  await waitFor('the webhook to patch Pods', async () => {
    const out = await kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], {
      input: JSON.stringify(probe),
    });
    const pod = JSON.parse(out) as Pod;
    return pod.spec.containers.length > 1 ? true : undefined;
  });
}

describe.runIf(local)(
  'ModRules on workloads run by kube-controller-manager and kube-scheduler',
  () => {
    beforeAll(async () => {
      op = await startOperatorOn(kubectl, kubeconfig());
    });

    afterAll(async () => {
      await deleteWebhookConfigurations(kubectl).catch(() => undefined);
      for (const args of cleanup.reverse()) await kubectl(args).catch(() => undefined);
      expect(await op.stop()).toBe(0);
      await deleteNamespacesNow(namespaces).catch(() => undefined);
    });

    it("injects the sidecar into a Deployment's Pods, and into the Pods a scale-up adds", async () => {
      const ns = await newNamespace('sidecar');
      await applyRule('sidecar', ns, sidecarRule);
      await waitForPodRules(ns, { sidecar: 'yes' });

      await kubectlApply(deployment('web', ns, { replicas: 2, labels: { sidecar: 'yes' } }));
      const first = await scheduledPods('web', ns, 2);
      for (const pod of first) expectSidecar(pod);
      // The rule targets Pods: the Deployment's own template is left as written.
      const stored = (await kubectlJson(['get', 'deployment', 'web', '-n', ns])) as {
        spec: { template: { spec: { containers: Container[] } } };
      };
      expect(stored.spec.template.spec.containers.map((c) => c.name)).toEqual(['main']);

      await kubectl(['scale', 'deployment', 'web', '-n', ns, '--replicas=4']);
      const scaled = await scheduledPods('web', ns, 4);
      const added = scaled.filter((p) => !first.some((f) => f.metadata.name === p.metadata.name));
      expect(added).toHaveLength(2);
      for (const pod of scaled) expectSidecar(pod);
    });

    it('patches the Pods of the new ReplicaSet when a template change rolls the Deployment out', async () => {
      const ns = await newNamespace('rollout');
      await applyRule('sidecar', ns, sidecarRule);
      await waitForPodRules(ns, { sidecar: 'yes' });
      // Surge the whole new ReplicaSet at once: no kubelet makes Pods available, so a rollout that
      // waited for availability would stop after the first surge Pod.
      const strategy = {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: '100%', maxUnavailable: 0 },
      };
      await kubectlApply(
        deployment('roll', ns, { replicas: 2, labels: { sidecar: 'yes' }, strategy }),
      );
      const before = await scheduledPods('roll', ns, 2);
      const oldReplicaSet = ownerOf(firstOf(before));

      await kubectl(['set', 'image', 'deployment/roll', '-n', ns, 'main=nginx:1.27']);
      const fresh = await waitFor(
        'two scheduled Pods of the new ReplicaSet',
        async () => {
          const pods = (await podsOf('roll', ns)).filter(
            (p) => ownerOf(p) !== oldReplicaSet && p.spec.nodeName !== undefined,
          );
          return pods.length === 2 ? pods : undefined;
        },
        60_000,
      );
      const newReplicaSet = ownerOf(firstOf(fresh));
      expect(newReplicaSet).not.toBe(oldReplicaSet);
      for (const pod of fresh) {
        expect(ownerOf(pod)).toBe(newReplicaSet);
        expect(pod.spec.containers[0]?.image).toBe('nginx:1.27');
        expectSidecar(pod);
      }
      const rs = (await kubectlJson(['get', 'replicaset', newReplicaSet, '-n', ns])) as ReplicaSet;
      expect(rs.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'roll' });
      expect(rs.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    });

    it('annotates a Pod bound by kube-scheduler with its node and copies the node labels', async () => {
      const ns = await newNamespace('nodes');
      // The two cluster-wide rules of KubeMod's README: opt every Pod in to the node reference at
      // CREATE, then patch it from its node's labels on the UPDATE that records the node.
      await applyRule(uniqueName('inject-node-ref'), SYSTEM_NAMESPACE, {
        type: 'Patch',
        targetNamespaceRegex: `^${ns}$`,
        admissionOperations: ['CREATE'],
        match: [
          { select: '$.kind', matchValue: 'Pod' },
          {
            select: '$.metadata.annotations["ref.kubemod.io/inject-node-ref"]',
            matchValue: 'true',
            negate: true,
          },
        ],
        patch: [
          {
            op: 'add',
            path: '/metadata/annotations/ref.kubemod.io~1inject-node-ref',
            value: '"true"',
          },
        ],
      });
      await applyRule(uniqueName('node-labels'), SYSTEM_NAMESPACE, {
        type: 'Patch',
        targetNamespaceRegex: `^${ns}$`,
        admissionOperations: ['UPDATE'],
        match: [
          { select: '$.kind', matchValue: 'Pod' },
          { select: '$.syntheticRefs.node.metadata.labels' },
        ],
        patch: [
          {
            op: 'add',
            path: '/metadata/labels/topology.kubernetes.io~1region',
            value: `"{{ index .Target.syntheticRefs.node.metadata.labels "${REGION}" }}"`,
          },
          {
            op: 'add',
            path: '/metadata/labels/topology.kubernetes.io~1zone',
            value: `"{{ index .Target.syntheticRefs.node.metadata.labels "${ZONE}" }}"`,
          },
        ],
      });
      await waitFor('the webhook to opt Pods in', async () => {
        const out = await kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], {
          input: JSON.stringify({
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { generateName: 'probe-', namespace: ns },
            spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
          }),
        });
        const pod = JSON.parse(out) as Pod;
        return pod.metadata.annotations?.['ref.kubemod.io/inject-node-ref'] === 'true' || undefined;
      });

      await kubectlApply(deployment('zoned', ns, { replicas: 2 }));
      const pods = await waitFor(
        'Pods labelled from their nodes',
        async () => {
          const list = await podsOf('zoned', ns);
          // The node ref is written after the binding (an UPDATE the dragnet sees): until then
          // the CREATE-time label is empty, so wait for the ref and a non-empty label.
          return list.length === 2 &&
            list.every(
              (p) =>
                p.spec.nodeName !== undefined &&
                p.metadata.annotations?.['ref.kubemod.io/nodename'] === p.spec.nodeName &&
                (p.metadata.labels?.[ZONE] ?? '') !== '',
            )
            ? list
            : undefined;
        },
        60_000,
      );
      for (const pod of pods) {
        const nodeName = pod.spec.nodeName ?? '';
        expect(inject('harnessNodes')).toContain(nodeName);
        expect(pod.metadata.annotations?.['ref.kubemod.io/inject-node-ref']).toBe('true');
        expect(pod.metadata.annotations?.['ref.kubemod.io/nodename']).toBe(nodeName);
        const node = (await kubectlJson(['get', 'node', nodeName])) as { metadata: Meta };
        expect(pod.metadata.labels?.[ZONE]).toBe(node.metadata.labels?.[ZONE]);
        expect(pod.metadata.labels?.[REGION]).toBe(node.metadata.labels?.[REGION]);
        // Bound by the scheduler, not by the test.
        const events = (await kubectlJson([
          'get',
          'events',
          '-n',
          ns,
          '--field-selector',
          `involvedObject.name=${pod.metadata.name},reason=Scheduled`,
        ])) as { items: Event[] };
        expect(events.items.map((e) => e.message)).toContain(
          `Successfully assigned ${ns}/${pod.metadata.name} to ${nodeName}`,
        );
      }
    });

    it("turns a Reject rule on Pods into the ReplicaSet's FailedCreate condition and event", async () => {
      const ns = await newNamespace('reject');
      await applyRule('no-pods-here', ns, {
        type: 'Reject',
        rejectMessage: 'no Pods for {{ .Target.metadata.generateName }} here',
        match: [
          { select: '$.kind', matchValue: 'Pod' },
          { select: '$.metadata.labels.app', matchValue: 'denied' },
        ],
      });
      await waitFor('the webhook to reject the Pods', async () => {
        const probe = {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { generateName: 'probe-', namespace: ns, labels: { app: 'denied' } },
          spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
        };
        try {
          await kubectl(['create', '--dry-run=server', '-f', '-'], {
            input: JSON.stringify(probe),
          });
          return undefined;
        } catch (error: unknown) {
          return error instanceof Error && error.message.includes('no-pods-here')
            ? true
            : undefined;
        }
      });

      await kubectlApply(deployment('denied', ns, { replicas: 2 }));
      const replicaSet = await waitFor(
        'the ReplicaSet to report FailedCreate',
        async () => {
          const list = (await kubectlJson([
            'get',
            'replicasets',
            '-n',
            ns,
            '-l',
            'app=denied',
          ])) as {
            items: ReplicaSet[];
          };
          const rs = list.items[0];
          const failure = rs?.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
          return failure?.status === 'True' ? rs : undefined;
        },
        60_000,
      );
      const name = replicaSet.metadata.name;
      const failure = replicaSet.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
      expect(failure?.reason).toBe('FailedCreate');
      expect(failure?.message).toContain('operation rejected by the following ModRule(s)');
      expect(failure?.message).toContain(`no Pods for ${name}- here`);

      const events = await waitFor('a FailedCreate event on the ReplicaSet', async () => {
        const list = (await kubectlJson([
          'get',
          'events',
          '-n',
          ns,
          '--field-selector',
          `involvedObject.kind=ReplicaSet,involvedObject.name=${name},reason=FailedCreate`,
        ])) as { items: Event[] };
        return list.items.length > 0 ? list.items : undefined;
      });
      expect(events[0]?.message).toMatch(
        /^Error creating: admission webhook "dragnet\.kubemod\.io" denied the request/,
      );
      expect(events[0]?.message).toContain(`no Pods for ${name}- here`);
      expect(await podsOf('denied', ns)).toEqual([]);
    });
  },
);
