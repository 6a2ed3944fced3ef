import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { kubeconfig, kubectl, waitFor } from './support/kubectl.js';
import {
  installKubeModBundle,
  type KubeObject,
  modRules,
  runScript,
  SYSTEM,
  uninstallAll,
} from './support/kubemod-switch.js';
import { uniqueName } from './support/names.js';
import {
  prepareReleasedBundle,
  waitForOperatorReady,
  type InstalledBundle,
} from './support/real-node.js';

// The switch from KubeMod's bundle on the harness's real node, timed: how long admission runs
// without ModRules (docs/install.md#the-gap-and-what-to-check-afterwards). KubeMod's objects are
// the e2e fixture's (its image cannot be pulled here, so its Pods never run: only the objects
// matter to the switch); kubemod-ts is the release bundle, pinned to the image pushed to the
// node's loopback registry, so the image pull is local and fast. The gap is measured from the
// script's start to (1) the script's end, (2) both new operator Pods Ready, (3) the first
// admission a ModRule patches again.

const namespace = uniqueName('switch-node');
let bundle: InstalledBundle;
let before: KubeObject[] = [];

/** A server-side dry-run create of a Service; resolves its annotations. */
async function dryRunService(): Promise<Record<string, string>> {
  const out = await kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { generateName: 'probe-', namespace },
      spec: { ports: [{ port: 80 }] },
    }),
  });
  return (JSON.parse(out) as KubeObject).metadata.annotations ?? {};
}

/** What the switch must not change; the running operator then writes only status. */
const identity = (r: KubeObject): string =>
  JSON.stringify([
    r.metadata.namespace,
    r.metadata.name,
    r.metadata.uid,
    r.metadata.labels,
    r.metadata.annotations,
    r.spec,
  ]);

describe('switching from KubeMod on a real node', () => {
  beforeAll(async () => {
    await uninstallAll(namespace); // the bundle another real-node file installed
    await installKubeModBundle(namespace);
    before = await modRules([namespace, SYSTEM]);
    bundle = await prepareReleasedBundle();
  });

  afterAll(async () => {
    await uninstallAll(namespace); // the files after this one start from a cluster without it
    await bundle.stopRegistry();
  });

  it('closes the gap once the new Pods are Ready, and says how long it lasted', async () => {
    expect(await dryRunService()).not.toHaveProperty('owner'); // no KubeMod operator runs
    const start = performance.now();
    await runScript('switch-from-kubemod.sh', [bundle.bundlePath]);
    const scriptMs = performance.now() - start;
    // Created in the gap: admitted without the cluster-wide rule (found by the audit below).
    await kubectl(['create', 'service', 'clusterip', 'slipped', '--tcp=80', '-n', namespace]);
    await waitForOperatorReady();
    const readyMs = performance.now() - start;
    await waitFor(
      'a ModRule to patch an admission again',
      async () => ((await dryRunService()).owner === 'platform' ? true : undefined),
      60_000,
      100,
    );
    const admitMs = performance.now() - start;
    console.log(
      `[switch gap] script ${(scriptMs / 1000).toFixed(1)} s, both Pods Ready ` +
        `${(readyMs / 1000).toFixed(1)} s, first patched admission ${(admitMs / 1000).toFixed(1)} s`,
    );
    expect(readyMs).toBeGreaterThan(scriptMs);
  });

  it('passes the checks of docs/install.md, and the audit finds what slipped through', async () => {
    await kubectl([
      '-n',
      SYSTEM,
      'rollout',
      'status',
      'deployment/kubemod-operator',
      '--timeout=60s',
    ]);
    const hooks = await kubectl([
      'get',
      'mutatingwebhookconfiguration',
      'kubemod-mutating-webhook-configuration',
      '-o',
      'jsonpath={range .webhooks[*]}{.name}: {.clientConfig.service.name} {.clientConfig.caBundle}{"\\n"}{end}',
    ]);
    const lines = hooks.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(line).toMatch(/^\S+: kubemod-webhook-service \S+$/);
    await waitFor(
      'every ModRule Ready',
      async () => {
        const rules = await modRules([namespace, SYSTEM]);
        return rules.every((r) =>
          r.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        )
          ? true
          : undefined;
      },
      60_000,
    );
    let out = '';
    const code = await main(
      ['audit', '--no-progress', '--kubeconfig', kubeconfig(), '-n', namespace, '-o', 'json'],
      { stdout: (t) => (out += t), stderr: (t) => (out += t), env: {} },
    );
    expect(code, out).toBe(1); // non-conforming objects found
    const report = JSON.parse(out) as {
      objects: { kind: string; name: string; action: string; rules: string[] }[];
    };
    expect(report.objects.find((o) => o.kind === 'Service' && o.name === 'slipped')).toMatchObject({
      action: 'patch',
      rules: [`${SYSTEM}/cluster-wide-owner`],
    });
  });

  it('keeps every ModRule: same uid, labels, annotations and spec (the operator adds status)', async () => {
    const after = await modRules([namespace, SYSTEM]);
    expect(after.map(identity)).toEqual(before.map(identity));
  });
});
