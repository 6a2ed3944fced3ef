import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, kubectlJson } from './support/kubectl.js';
import {
  bundlePath,
  exists,
  installKubeModBundle,
  KUBEMOD_LEFTOVERS,
  kubectlDiff,
  type Meta,
  modRuleBytes,
  modRules,
  MUTATING,
  runScript,
  SYSTEM,
  uninstallAll,
  VALIDATING,
} from './support/kubemod-switch.js';
import { uniqueName } from './support/names.js';

// Replaces a KubeMod install with kubemod-ts the way docs/install.md tells users to: KubeMod's
// objects (test/fixtures/kubemod-install, created as KubeMod's install creates them: client-side
// apply, then its certificate job's Secret and `kubectl patch` of the caBundles), ModRules in a
// namespace and in kubemod-system, then exactly scripts/switch-from-kubemod.sh, once client-side
// and once server-side. The ModRules must come out byte for byte and KubeMod's objects gone.
// The Helm paths: switch-from-kubemod-helm.e2e.test.ts; the way back: switch-back-to-kubemod.

describe.each([
  { mode: 'client-side', flags: [] as string[] },
  { mode: 'server-side', flags: ['--server-side'] },
])('switching from KubeMod with scripts/switch-from-kubemod.sh ($mode)', ({ mode, flags }) => {
  const namespace = uniqueName(`switch-${mode}`);
  let before: Awaited<ReturnType<typeof modRules>> = [];
  let beforeBytes: string[] = [];

  beforeAll(async () => {
    await uninstallAll(namespace); // leftovers of an interrupted earlier run
    await installKubeModBundle(namespace);
    before = await modRules([namespace, SYSTEM]);
    beforeBytes = await modRuleBytes([namespace, SYSTEM]);
  });

  afterAll(async () => {
    await uninstallAll(namespace);
  });

  it('starts from a KubeMod install whose ModRules hold explicit nulls', () => {
    expect(before.map((r) => r.metadata.name)).toEqual([
      'cluster-wide-owner',
      'drop-debug-env',
      'keep-config',
      'label-web',
    ]);
    const drop = before.find((r) => r.metadata.name === 'drop-debug-env');
    expect(drop?.spec.match).toEqual([
      { select: '$.kind', matchValue: null, matchRegex: '^(Pod|Deployment)$', matchFor: 'All' },
    ]);
    // KubeMod's CRD default, stored by the API server.
    expect(before.find((r) => r.metadata.name === 'label-web')?.spec.admissionOperations).toEqual([
      'CREATE',
      'UPDATE',
    ]);
  });

  if (mode === 'server-side') {
    it('would conflict on the webhook configurations if the bundle were applied straight over it', async () => {
      await expect(
        kubectl(['apply', '--server-side', '--dry-run=server', '-f', bundlePath]),
      ).rejects.toThrow(/conflict.*\.webhooks\[name="(mmodrule|vmodrule)\.kubemod\.io"\]/s);
    });
  }

  it('runs the documented sequence to the end', async () => {
    const trace = await runScript('switch-from-kubemod.sh', [...flags, bundlePath]);
    expect(trace).toContain(`kubectl apply ${flags.join(' ')}`.trim());
    // Not a Helm install of KubeMod: nothing of a release to remove.
    expect(trace).not.toContain('owner=helm');
  });

  it('keeps every ModRule byte for byte (the whole object, resourceVersion included)', async () => {
    expect(await modRuleBytes([namespace, SYSTEM])).toEqual(beforeBytes);
  });

  it("leaves none of KubeMod's own objects", async () => {
    for (const args of KUBEMOD_LEFTOVERS) {
      expect(await exists(args), args.join(' ')).toBe(false);
    }
    // KubeMod's Pods are deleted; with no kubelet here they can only be Terminating.
    const pods = (await kubectlJson([
      'get',
      'pods',
      '-n',
      SYSTEM,
      '-l',
      'control-plane=controller-manager',
    ])) as {
      items: { metadata: Meta }[];
    };
    expect(pods.items.filter((p) => p.metadata.deletionTimestamp === undefined)).toEqual([]);
  });

  it('ends with exactly the objects of bundle.yaml (kubectl diff finds nothing)', async () => {
    const diff = await kubectlDiff([...flags, '-f', bundlePath]);
    expect(diff.out).toBe('');
    expect(diff.code).toBe(0);
    // The webhook configurations were created afresh: KubeMod's caBundle is gone with them, and
    // one field manager owns them, so later server-side applies have nothing to conflict with.
    for (const [kind, name] of [
      ['mutatingwebhookconfiguration', MUTATING],
      ['validatingwebhookconfiguration', VALIDATING],
    ] as const) {
      const config = (await kubectlJson(['get', kind, name, '--show-managed-fields'])) as {
        metadata: Meta;
        webhooks: { name: string; clientConfig: { caBundle?: string } }[];
      };
      expect(config.webhooks.map((w) => w.clientConfig.caBundle)).toEqual(
        config.webhooks.map(() => undefined),
      );
      expect(config.metadata.managedFields?.map((f) => f.manager)).toEqual([
        mode === 'server-side' ? 'kubectl' : 'kubectl-client-side-apply',
      ]);
    }
    const deployment = (await kubectlJson([
      'get',
      'deployment',
      'kubemod-operator',
      '-n',
      SYSTEM,
    ])) as {
      spec: { selector: { matchLabels: Record<string, string> } };
    };
    expect(deployment.spec.selector.matchLabels).not.toHaveProperty('control-plane');
  });
});
