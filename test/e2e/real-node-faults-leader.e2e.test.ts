import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deleteNamespacesNow,
  kubectl,
  kubectlApply,
  kubectlJson,
  waitFor,
} from './support/kubectl.js';
import {
  createFloodNamespace,
  DRAGNET,
  IN_FLIGHT_MS,
  readyOperatorPod,
  report,
  sigkillOperator,
  startFlood,
  unexplainedThrough,
} from './support/fault-scenario.js';
import { causeCounts, webhookFailuresSince } from './support/fail-open-log.js';
import { uniqueName } from './support/names.js';
import {
  installReleasedBundle,
  modRule,
  SYSTEM_NAMESPACE,
  waitForOperatorReady,
  type InstalledBundle,
} from './support/real-node.js';
import { adminCredentials } from './support/reject-load.js';
import { apiCall } from '../cluster/api-client.js';
import { watchWrites } from './support/watch-writes.js';

// Fault figure (c) of issue 36: the leader is SIGKILLed while an apply-to-existing job brings 40
// existing ConfigMaps in line, with the flood of refused ConfigMaps running in another
// namespace. The job must finish exactly once (one Completed status, one AppliedToExisting
// Event), every object must be patched (nothing lost), and no object written twice: a watch from
// before the rule existed counts the writes per object.

const RBAC = fileURLToPath(
  new URL('../../config/optional/apply-to-existing-rbac.yaml', import.meta.url),
);
const TARGETS = 40;
const LEASE = 'kubemod-operator-leader';
let bundle: InstalledBundle;
let floodNs: string;
let ns: string;

interface ApplyStatus {
  metadata: { generation: number };
  status?: {
    applyToExisting?: {
      phase?: string;
      observedGeneration?: number;
      updated?: number;
      failed?: number;
      forbidden?: number;
    };
  };
}

interface ConfigMapList {
  metadata: { resourceVersion: string };
  items: { metadata: { name: string; labels?: Record<string, string> } }[];
}

async function leaderPod(): Promise<string> {
  const lease = (await kubectlJson(['get', 'lease', LEASE, '-n', SYSTEM_NAMESPACE])) as {
    spec: { holderIdentity?: string };
  };
  return lease.spec.holderIdentity ?? '';
}

describe('apply-to-existing when the leader is killed', () => {
  beforeAll(async () => {
    bundle = await installReleasedBundle();
    await kubectl(['apply', '-f', RBAC]);
    await waitForOperatorReady();
    floodNs = await createFloodNamespace();
    ns = uniqueName('real-node-ate');
    await kubectl(['create', 'namespace', ns]);
    await kubectl(['label', 'namespace', ns, 'apply-to-existing.kubemod.io/enabled=true']);
    const items = Array.from({ length: TARGETS }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `target-${String(i)}`, namespace: ns, labels: { target: 'yes' } },
      data: { n: String(i) },
    }));
    await kubectlApply({ apiVersion: 'v1', kind: 'List', items });
  });

  afterAll(async () => {
    await deleteNamespacesNow([ns, floodNs]);
    await kubectl(['delete', '-f', RBAC, '--ignore-not-found']);
    await bundle.stopRegistry();
  });

  it('(c) finishes the job exactly once, nothing written twice or lost, nothing through', async () => {
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    // The list's own resourceVersion (kubectl's `-o json` list has none): the watch starts there.
    const listed = (await apiCall(
      adminCredentials(),
      'GET',
      `${path}?labelSelector=target%3Dyes`,
    )) as ConfigMapList;
    expect(listed.items).toHaveLength(TARGETS);
    const writes = watchWrites(
      adminCredentials(),
      `${path}?labelSelector=target%3Dyes`,
      listed.metadata.resourceVersion,
    );
    const load = startFlood(floodNs);
    await sleep(3_000);
    await kubectlApply({
      ...modRule('stamp', ns, {
        type: 'Patch',
        match: [
          { select: '$.kind', matchValue: 'ConfigMap' },
          { select: '$.metadata.labels.target', matchValue: 'yes' },
        ],
        // A patch value is YAML (as in KubeMod): a bare `yes` would be the boolean true.
        patch: [{ op: 'add', path: '/metadata/labels/stamped', value: 'done' }],
      }),
      metadata: {
        name: 'stamp',
        namespace: ns,
        annotations: { 'api.kubemod.io/apply-to-existing': 'true' },
      },
    });
    // Kill the leader once the job is well under way (2 objects/s per namespace by default).
    await waitFor(
      'a quarter of the objects written',
      async () => {
        if (writes.modified.size >= TARGETS / 4) return true;
        const rule = (await kubectlJson(['get', 'modrule', 'stamp', '-n', ns])) as ApplyStatus;
        // Shown if the wait times out.
        throw new Error(
          `${String(writes.modified.size)} written; watch: ${writes.others.slice(-3).join('; ')}; ` +
            `job: ${JSON.stringify(rule.status?.applyToExisting)}`,
        );
      },
      120_000,
      500,
    );
    const leader = await leaderPod();
    const writtenBeforeKill = writes.modified.size;
    const killed = sigkillOperator(await readyOperatorPod(leader));
    const done = await waitFor(
      'the job to complete',
      async () => {
        const rule = (await kubectlJson(['get', 'modrule', 'stamp', '-n', ns])) as ApplyStatus;
        const job = rule.status?.applyToExisting;
        return job?.phase === 'Completed' && job.observedGeneration === rule.metadata.generation
          ? job
          : undefined;
      },
      240_000,
      500,
    );
    const completedMs = Date.now() - killed.killedAt;
    const { readyAt } = await killed.recovered();
    const failures = webhookFailuresSince(DRAGNET, killed.killedAt - IN_FLIGHT_MS);
    // Nothing more may be written after completion.
    await sleep(5_000);
    writes.stop();
    const figures = await load.stop();
    const events = (await kubectlJson([
      'get',
      'events',
      '-n',
      ns,
      '--field-selector',
      'reason=AppliedToExisting,involvedObject.name=stamp',
    ])) as { items: { count?: number; message: string }[] };
    const after = (await kubectlJson([
      'get',
      'configmaps',
      '-n',
      ns,
      '-l',
      'target=yes',
    ])) as ConfigMapList;
    const twice = [...writes.modified].filter(([, versions]) => versions.length > 1);
    report('leader SIGKILLed during apply-to-existing', figures, {
      objects: TARGETS,
      writtenBeforeKill,
      written: writes.modified.size,
      writtenTwice: twice.length,
      status: done,
      completedMsAfterKill: completedMs,
      recoveryMs: readyAt - killed.killedAt,
      failedCalls: causeCounts(failures),
      leaderBefore: leader,
      leaderAfter: await leaderPod(),
      events: events.items.map((e) => `${String(e.count ?? 1)}× ${e.message}`),
    });
    // Killing the leader is a SIGKILL of a replica: under the shipped failurePolicy Ignore, only
    // calls the API server sent to the dead Pod may fail open (as in real-node-faults (b)).
    expect(unexplainedThrough(figures, failures, killed.killedAt, readyAt)).toEqual([]);
    expect(figures.failed, figures.samples.join('\n')).toBe(0);
    expect(figures.refused).toBeGreaterThan(0);
    // Nothing lost: every object carries the patch. Nothing written twice: one write each.
    expect(
      after.items
        .filter((cm) => cm.metadata.labels?.stamped !== 'done')
        .map((cm) => cm.metadata.name),
    ).toEqual([]);
    expect(twice).toEqual([]);
    expect(writes.modified.size).toBe(TARGETS);
    expect(writes.others).toEqual([]);
    // Finished exactly once: one Completed status without failures, one Event.
    expect(done.failed ?? 0).toBe(0);
    expect(done.updated ?? 0).toBeLessThanOrEqual(TARGETS);
    expect(events.items.reduce((sum, e) => sum + (e.count ?? 1), 0)).toBe(1);
  });
});
