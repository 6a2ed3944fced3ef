import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlJson } from './support/kubectl.js';
import { buildHelm, CHART_PATH, run } from './support/helm.js';
import { kubeconfig } from './support/kubectl.js';
import {
  bundlePath,
  exists,
  gone,
  helmOk,
  installKubeModBundle,
  type KubeObject,
  kubeModBundleFile,
  kubeModChart,
  kubectlDiff,
  modRuleBytes,
  MUTATING,
  runScript,
  SYSTEM,
  uninstallAll,
  VALIDATING,
} from './support/kubemod-switch.js';
import { uniqueName } from './support/names.js';

// The rollback of docs/install.md: KubeMod's bundle, switched to kubemod-ts (by the bundle or by
// the chart), then scripts/switch-back-to-kubemod.sh with KubeMod's bundle. Every ModRule must
// come out byte for byte, no kubemod-ts object may stay, and KubeMod's objects must be back.

describe.each([
  { via: 'bundle', back: 'bundle' },
  { via: 'helm', back: 'bundle' },
  { via: 'helm', back: 'chart' },
])('switching back to KubeMod (by its $back) after a switch by $via', ({ via, back }) => {
  const namespace = uniqueName(`switch-back-${via}`);
  let kubeModBundle = '';
  let helm = '';
  let beforeBytes: string[] = [];

  beforeAll(async () => {
    helm = await buildHelm();
    kubeModBundle = kubeModBundleFile();
    await uninstallAll(namespace, helm); // leftovers of an interrupted earlier run
    await installKubeModBundle(namespace);
    beforeBytes = await modRuleBytes([namespace, SYSTEM]);
    const args = via === 'helm' ? ['--helm', CHART_PATH] : [bundlePath];
    await runScript('switch-from-kubemod.sh', args, { HELM: helm });
    expect(await exists(['deployment', 'kubemod-operator', '-n', SYSTEM])).toBe(true);
  }, 30 * 60_000);

  afterAll(async () => {
    await uninstallAll(namespace, helm);
  });

  it('runs the rollback to the end', async () => {
    const args = back === 'bundle' ? [kubeModBundle] : ['--remove-only'];
    const trace = await runScript('switch-back-to-kubemod.sh', args);
    if (back === 'bundle') expect(trace).toContain(`kubectl apply -f ${kubeModBundle}`);
    else expect(trace).not.toContain('kubectl apply');
    if (via === 'helm') expect(trace).toContain('-l owner=helm,name=kubemod-ts');
    // --remove-only, then KubeMod your way: here its chart, as docs/install.md shows.
    if (back === 'chart') await helmOk(helm, ['install', 'kubemod', kubeModChart(), '-n', SYSTEM]);
  });

  it('keeps every ModRule byte for byte, the namespace and the CRD', async () => {
    expect(await modRuleBytes([namespace, SYSTEM])).toEqual(beforeBytes);
    expect(await exists(['namespace', SYSTEM])).toBe(true);
  });

  it('leaves no kubemod-ts object and no release record', async () => {
    const selector = ['-l', 'app.kubernetes.io/part-of=kubemod,app.kubernetes.io/component'];
    for (const kinds of [
      [
        'deployment,service,serviceaccount,role,rolebinding,poddisruptionbudget,networkpolicy',
        '-n',
        SYSTEM,
      ],
      [
        'clusterrole,clusterrolebinding,mutatingwebhookconfiguration,validatingwebhookconfiguration',
      ],
    ])
      expect(await gone([...kinds, ...selector]), kinds[0]).toBe(true);
    expect(await gone(['secret', 'kubemod-webhook-server-cert', '-n', SYSTEM])).toBe(true);
    expect(await gone(['secret,configmap', '-n', SYSTEM, '-l', 'owner=helm,name=kubemod-ts'])).toBe(
      true,
    );
    const status = await run(helm, ['status', 'kubemod-ts', '-n', SYSTEM], {
      KUBECONFIG: kubeconfig(),
    });
    expect(status.code).not.toBe(0);
  });

  it("ends with KubeMod's objects: its Deployment, certificate job and webhooks", async () => {
    if (back === 'chart') {
      expect(await exists(['deployment', 'kubemod', '-n', SYSTEM])).toBe(true);
      expect(await exists(['cronjob', 'kubemod-crt-cron-job', '-n', SYSTEM])).toBe(true);
      const config = (await kubectlJson([
        'get',
        'mutatingwebhookconfiguration',
        MUTATING,
      ])) as KubeObject;
      expect(config.metadata.annotations?.['meta.helm.sh/release-name']).toBe('kubemod');
      return;
    }
    const deployment = (await kubectlJson([
      'get',
      'deployment',
      'kubemod-operator',
      '-n',
      SYSTEM,
    ])) as { spec: { selector: { matchLabels: Record<string, string> } } };
    expect(deployment.spec.selector.matchLabels).toMatchObject({
      'control-plane': 'controller-manager',
    });
    expect(await exists(['cronjob', 'kubemod-crt-cron-job', '-n', SYSTEM])).toBe(true);
    for (const [kind, name] of [
      ['mutatingwebhookconfiguration', MUTATING],
      ['validatingwebhookconfiguration', VALIDATING],
    ] as const) {
      const config = (await kubectlJson(['get', kind, name])) as KubeObject & {
        webhooks: { clientConfig: { caBundle?: string } }[];
      };
      expect(config.metadata.labels?.['app.kubernetes.io/part-of']).toBeUndefined();
      expect(config.webhooks.map((w) => w.clientConfig.caBundle)).toEqual(
        config.webhooks.map(() => 'Cg=='),
      );
    }
  });

  it("kubectl diff finds nothing against KubeMod's bundle (or helm status finds its chart)", async () => {
    if (back === 'chart') {
      const status = await run(helm, ['status', 'kubemod', '-n', SYSTEM], {
        KUBECONFIG: kubeconfig(),
      });
      expect(status.code).toBe(0);
      return;
    }
    const diff = await kubectlDiff(['-f', kubeModBundle]);
    expect(diff.out).toBe('');
    expect(diff.code).toBe(0);
  });
});
