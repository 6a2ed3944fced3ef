import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteNamespacesNow, kubectl } from './support/kubectl.js';
import { createFloodNamespace, report, startFlood } from './support/fault-scenario.js';
import { operatorPods } from './support/real-node-admission.js';
import {
  installReleasedBundle,
  OPERATOR_DEPLOYMENT,
  RELEASE_REPOSITORY,
  SYSTEM_NAMESPACE,
  waitForOperatorReady,
  type InstalledBundle,
} from './support/real-node.js';

// Issue 36, item 3: a rolling upgrade of the released bundle to a second image under the flood
// of ConfigMaps a Reject rule must refuse. The second image is the same build with one more
// label (crane mutate), pushed by digest to the loopback registry like the first, and the
// Deployment is pointed at it by digest under the release's own name, as an upgrade would.

const execFileAsync = promisify(execFile);
let bundle: InstalledBundle;
let ns: string;

describe('a rolling upgrade of the released bundle under load', () => {
  beforeAll(async () => {
    bundle = await installReleasedBundle();
    await waitForOperatorReady();
    ns = await createFloodNamespace();
  });

  afterAll(async () => {
    await deleteNamespacesNow([ns]);
    await bundle.stopRegistry();
  });

  it('rolls both replicas to the second image and lets nothing through', async () => {
    const { stdout } = await execFileAsync(bundle.crane, [
      'mutate',
      `${bundle.localRepository}@${bundle.manifestDigest}`,
      '--label',
      'io.kubemod-ts.e2e.upgrade=second',
      '-t',
      `${bundle.localRepository}:upgrade-second`,
    ]);
    const second = /sha256:[0-9a-f]{64}/.exec(stdout)?.[0];
    expect(second, stdout).toBeDefined();
    expect(second).not.toBe(bundle.manifestDigest);
    const load = startFlood(ns);
    await sleep(5_000);
    const started = Date.now();
    await kubectl([
      'set',
      'image',
      `deployment/${OPERATOR_DEPLOYMENT}`,
      '-n',
      SYSTEM_NAMESPACE,
      `operator=${RELEASE_REPOSITORY}@${second ?? ''}`,
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
    const upgradeMs = Date.now() - started;
    await sleep(5_000);
    const figures = await load.stop();
    const pods = (await operatorPods()).filter((p) => p.metadata.deletionTimestamp === undefined);
    report('rolling upgrade to a second image', figures, { upgradeMs, image: second });
    expect(figures.through, figures.samples.join('\n')).toBe(0);
    expect(figures.failed, figures.samples.join('\n')).toBe(0);
    expect(figures.refused).toBeGreaterThan(0);
    // Both replicas run the second image, pulled by its digest.
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      expect(pod.spec.containers[0]?.image).toBe(`${RELEASE_REPOSITORY}@${second ?? ''}`);
      expect(pod.status.containerStatuses?.[0]?.imageID ?? '').toContain(second ?? 'none');
    }
  });
});
