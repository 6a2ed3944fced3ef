import { setTimeout as sleep } from 'node:timers/promises';
import { kubectl, kubectlApply, kubectlJson, waitFor } from './kubectl.js';
import { uniqueName } from './names.js';
import { modRule, realNode, SYSTEM_NAMESPACE } from './real-node.js';
import { containerProcess } from './real-node-inspect.js';
import { operatorPods, type OperatorPod } from './real-node-admission.js';
import type { WebhookCallFailure } from './fail-open-log.js';
import {
  adminCredentials,
  startRejectLoad,
  type LoadFigures,
  type RejectLoad,
} from './reject-load.js';

// What the fault scenarios on the real node share (issue 36): a namespace with a Reject rule that
// refuses every ConfigMap of the flood, the stream itself, the operator's Pods, a SIGKILL of one
// operator container, and one JSON line of figures per scenario ("[fault-figures] …").

export const REJECT_MESSAGE = 'flood refused on the real node';
export const FLOOD_LABEL: Readonly<Record<string, string>> = { flood: 'yes' };
export const MUTATING_WEBHOOKS = 'kubemod-mutating-webhook-configuration';
export const DRAGNET = 'dragnet.kubemod.io';

/** The namespace of the flood, with its Reject rule loaded by every replica. */
export async function createFloodNamespace(prefix = 'real-node-flood'): Promise<string> {
  const ns = uniqueName(prefix);
  await kubectl(['create', 'namespace', ns]);
  await kubectlApply(
    modRule('refuse-flood', ns, {
      type: 'Reject',
      rejectMessage: REJECT_MESSAGE,
      match: [
        { select: '$.kind', matchValue: 'ConfigMap' },
        { select: '$.metadata.labels.flood', matchValue: 'yes' },
      ],
    }),
  );
  // Both replicas have the rule: a burst through the Service is refused every time.
  await waitFor(
    'both replicas to refuse',
    async () => {
      const load = startRejectLoad(adminCredentials(), ns, FLOOD_LABEL, REJECT_MESSAGE, 20);
      await sleep(1_000);
      const figures = await load.stop();
      return figures.refused === figures.sent && figures.sent > 10 ? true : undefined;
    },
    60_000,
  );
  return ns;
}

/** The stream of 20 ConfigMaps/s into `ns` that the Reject rule must refuse. */
export function startFlood(ns: string): RejectLoad {
  return startRejectLoad(adminCredentials(), ns, FLOOD_LABEL, REJECT_MESSAGE, 20);
}

export function report(scenario: string, figures: LoadFigures, extra: object = {}): void {
  const { sent, refused, through, failed, p50Ms, p99Ms, maxMs, samples } = figures;
  const counts = { sent, refused, through, failed, p50Ms, p99Ms, maxMs };
  console.log(
    `[fault-figures] ${JSON.stringify({ scenario, ...counts, ...extra, samples: samples.slice(0, 2) })}`,
  );
}

export interface KilledContainer {
  readonly pod: string;
  /** When the SIGKILL was sent (ms since the epoch). */
  readonly killedAt: number;
  /**
   * Resolves once the kubelet has restarted the container and it is Ready again: when the Pod
   * was first seen not Ready (what takes it out of the Service's endpoints) and when it was seen
   * Ready again (ms since the epoch; polled every 250 ms).
   */
  recovered(): Promise<{ notReadyAt: number | undefined; readyAt: number }>;
}

/** SIGKILLs the operator container of `pod` (its init process: the whole container dies). */
export function sigkillOperator(pod: OperatorPod): KilledContainer {
  const status = pod.status.containerStatuses?.[0];
  const id = (status?.containerID ?? '').replace(/^containerd:\/\//, '');
  const restartsBefore = status?.restartCount ?? 0;
  process.kill(containerProcess(realNode().cgroupName, id).pid, 'SIGKILL');
  const killedAt = Date.now();
  return {
    pod: pod.metadata.name,
    killedAt,
    async recovered(): Promise<{ notReadyAt: number | undefined; readyAt: number }> {
      let notReadyAt: number | undefined;
      await waitFor(
        'the killed container to be restarted and Ready',
        async () => {
          const now = (await kubectlJson([
            'get',
            'pod',
            pod.metadata.name,
            '-n',
            SYSTEM_NAMESPACE,
          ])) as OperatorPod;
          const s = now.status.containerStatuses?.[0];
          if (s?.ready === false) notReadyAt ??= Date.now();
          return s !== undefined && s.restartCount > restartsBefore && s.ready ? true : undefined;
        },
        120_000,
        250,
      );
      return { notReadyAt, readyAt: Date.now() };
    },
  };
}

/** A Ready operator Pod that is not terminating (optionally: this one). */
export async function readyOperatorPod(name?: string): Promise<OperatorPod> {
  const pod = (await operatorPods()).find(
    (p) =>
      (name === undefined || p.metadata.name === name) &&
      p.metadata.deletionTimestamp === undefined &&
      p.status.containerStatuses?.[0]?.ready === true,
  );
  if (pod === undefined)
    throw new Error(`no Ready operator Pod${name === undefined ? '' : ` ${name}`}`);
  return pod;
}

/** Sets the dragnet webhook's failurePolicy (a platform team's choice; the bundle ships Ignore). */
export async function setDragnetFailurePolicy(policy: 'Ignore' | 'Fail'): Promise<void> {
  const config = (await kubectlJson([
    'get',
    'mutatingwebhookconfiguration',
    MUTATING_WEBHOOKS,
  ])) as {
    webhooks: { name: string }[];
  };
  const index = config.webhooks.findIndex((w) => w.name === DRAGNET);
  if (index < 0) throw new Error(`${MUTATING_WEBHOOKS} has no webhook ${DRAGNET}`);
  await kubectl([
    'patch',
    'mutatingwebhookconfiguration',
    MUTATING_WEBHOOKS,
    '--type=json',
    '-p',
    JSON.stringify([
      { op: 'replace', path: `/webhooks/${String(index)}/failurePolicy`, value: policy },
    ]),
  ]);
}

/** A request sent this long before a kill may still be in flight on the killed replica. */
export const IN_FLIGHT_MS = 1_000;

/**
 * Under failurePolicy Ignore, what a SIGKILL may let through (docs/failure-policy.md): only
 * requests whose webhook call the API server logged as failed with a connection error, sent
 * between the kill and the replica's recovery. Returns the problems found (empty: none).
 */
export function unexplainedThrough(
  figures: LoadFigures,
  failures: readonly WebhookCallFailure[],
  killedAt: number,
  recoveredAt: number,
): string[] {
  const problems: string[] = [];
  if (figures.through > failures.length)
    problems.push(`${String(figures.through)} through, ${String(failures.length)} failed calls`);
  for (const sentAt of figures.throughSentAt) {
    if (sentAt < killedAt - IN_FLIGHT_MS || sentAt > recoveredAt)
      problems.push(`sent at ${String(sentAt)}, outside the kill window`);
    if (!failures.some((f) => f.at >= sentAt - 50 && f.at <= sentAt + 10_000))
      problems.push(`sent at ${String(sentAt)}: no failed webhook call logged for it`);
  }
  for (const f of failures) {
    if (!['connection refused', 'connection reset', 'EOF'].includes(f.cause))
      problems.push(`failed call not a connection error: ${f.error}`);
  }
  return problems;
}
