import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  SYSTEM_NAMESPACE,
  waitForOperatorReady,
  type InstalledBundle,
} from './support/real-node.js';
import { containerProcess } from './support/real-node-inspect.js';
import { adminCredentials, startRejectLoad, type LoadFigures } from './support/reject-load.js';

// Fault figures (issue 36): the released bundle on the real node, a stream of 20 ConfigMaps/s
// sent to the harness's API server that a Reject rule must refuse, while (a) the Deployment rolls
// and (b) one operator container is SIGKILLed. With two replicas nothing may get through. The
// figures are printed as one JSON line per scenario ("[fault-figures] …") for BENCHMARKS.md.

const REJECT_MESSAGE = 'flood refused on the real node';
const LABEL = { flood: 'yes' };
let bundle: InstalledBundle;
let ns: string;

interface Pod {
  metadata: { name: string; deletionTimestamp?: string };
  status: { containerStatuses?: { containerID?: string; restartCount: number; ready: boolean }[] };
}

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

function report(scenario: string, figures: LoadFigures, extra: object = {}): void {
  console.log(`[fault-figures] ${JSON.stringify({ scenario, ...figures, ...extra })}`);
}

describe('the released bundle under load and faults', () => {
  beforeAll(async () => {
    bundle = await installReleasedBundle();
    await waitForOperatorReady();
    ns = uniqueName('real-node-flood');
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
        const load = startRejectLoad(adminCredentials(), ns, LABEL, REJECT_MESSAGE, 20);
        await sleep(1_000);
        const figures = await load.stop();
        return figures.refused === figures.sent && figures.sent > 10 ? true : undefined;
      },
      60_000,
    );
  });

  afterAll(async () => {
    await deleteNamespacesNow([ns]);
    await bundle.stopRegistry();
  });

  it('(a) lets nothing through while the Deployment rolls', async () => {
    const load = startRejectLoad(adminCredentials(), ns, LABEL, REJECT_MESSAGE, 20);
    await sleep(5_000);
    const started = Date.now();
    await kubectl([
      'rollout',
      'restart',
      `deployment/${OPERATOR_DEPLOYMENT}`,
      '-n',
      SYSTEM_NAMESPACE,
    ]);
    await kubectl(
      [
        'rollout',
        'status',
        `deployment/${OPERATOR_DEPLOYMENT}`,
        '-n',
        SYSTEM_NAMESPACE,
        '--timeout=170s',
      ],
      { timeoutMs: 180_000 },
    );
    await waitForOperatorReady();
    const rolloutMs = Date.now() - started;
    await sleep(5_000);
    const figures = await load.stop();
    report('rollout restart', figures, { rolloutMs });
    expect(figures.through, figures.samples.join('\n')).toBe(0);
    expect(figures.refused).toBeGreaterThan(0);
  });

  it('(b) lets nothing through while one operator container is SIGKILLed', async () => {
    // A running replica, not one the rollout above is still terminating.
    const victim = (await operatorPods()).find(
      (p) =>
        p.metadata.deletionTimestamp === undefined &&
        p.status.containerStatuses?.[0]?.ready === true,
    );
    const status = victim?.status.containerStatuses?.[0];
    const id = (status?.containerID ?? '').replace(/^containerd:\/\//, '');
    const restartsBefore = status?.restartCount ?? 0;
    const load = startRejectLoad(adminCredentials(), ns, LABEL, REJECT_MESSAGE, 20);
    await sleep(5_000);
    process.kill(containerProcess(realNode().cgroupName, id).pid, 'SIGKILL');
    const started = Date.now();
    await waitFor(
      'the killed container to be restarted and Ready',
      async () => {
        const pod = (await kubectlJson([
          'get',
          'pod',
          victim?.metadata.name ?? '',
          '-n',
          SYSTEM_NAMESPACE,
        ])) as Pod;
        const now = pod.status.containerStatuses?.[0];
        return now !== undefined && now.restartCount > restartsBefore && now.ready
          ? true
          : undefined;
      },
      120_000,
      500,
    );
    const recoveryMs = Date.now() - started;
    await sleep(5_000);
    const figures = await load.stop();
    report('SIGKILL one operator container', figures, { recoveryMs });
    expect(figures.through, figures.samples.join('\n')).toBe(0);
    expect(figures.refused).toBeGreaterThan(0);
  });
});
