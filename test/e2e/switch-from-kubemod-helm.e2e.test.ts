import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, kubectlJson } from './support/kubectl.js';
import { buildHelm, CHART_PATH, run } from './support/helm.js';
import {
  bundlePath,
  exists,
  gone,
  helmOk,
  installKubeModBundle,
  installKubeModChart,
  type KubeObject,
  KUBEMOD_LEFTOVERS,
  kubectlDiff,
  modRuleBytes,
  MUTATING,
  runScript,
  SYSTEM,
  uninstallAll,
  VALIDATING,
} from './support/kubemod-switch.js';
import { kubeconfig } from './support/kubectl.js';
import { uniqueName } from './support/names.js';

// The switch paths that involve Helm, on the e2e API server (no kubelet: no Pod of either
// operator runs; what is checked is what the scripts and Helm leave behind):
// - KubeMod's bundle → the kubemod-ts chart (`switch-from-kubemod.sh --helm`), then `helm
//   uninstall kubemod-ts`, which must keep the namespace, the CRD and every ModRule;
// - KubeMod's chart (release `kubemod`) → the bundle, and → the kubemod-ts chart: the old
//   release's objects and its record must go, so a later `helm uninstall kubemod` deletes none of
//   ours (same names).
// Every ModRule, the one KubeMod's chart rendered included, must come out byte for byte.

interface Path {
  readonly from: 'bundle' | 'chart';
  readonly to: 'bundle' | 'helm';
}

describe.each<Path>([
  { from: 'bundle', to: 'helm' },
  { from: 'chart', to: 'bundle' },
  { from: 'chart', to: 'helm' },
])('switching from KubeMod installed by its $from to kubemod-ts by $to', ({ from, to }) => {
  const namespace = uniqueName(`switch-${from}-${to}`);
  let helm = '';
  let beforeBytes: string[] = [];
  const helmStatus = async (release: string): Promise<number> =>
    (await run(helm, ['status', release, '-n', SYSTEM], { KUBECONFIG: kubeconfig() })).code;

  beforeAll(async () => {
    helm = await buildHelm();
    await uninstallAll(namespace, helm); // leftovers of an interrupted earlier run
    if (from === 'bundle') await installKubeModBundle(namespace);
    else await installKubeModChart(helm, namespace);
    beforeBytes = await modRuleBytes([namespace, SYSTEM]);
  }, 30 * 60_000);

  afterAll(async () => {
    await uninstallAll(namespace, helm);
  });

  it('starts from KubeMod as it installs itself', async () => {
    expect(beforeBytes).toHaveLength(from === 'chart' ? 5 : 4);
    if (from === 'chart') {
      expect(await helmStatus('kubemod')).toBe(0);
      const rendered = (await kubectlJson([
        'get',
        'modrule',
        'kubemod-chart-rule',
        '-n',
        SYSTEM,
      ])) as KubeObject;
      expect(rendered.metadata.annotations?.['meta.helm.sh/release-name']).toBe('kubemod');
    } else {
      // Why the script comes first: Helm refuses to adopt KubeMod's CRD.
      const direct = await run(helm, ['install', 'kubemod-ts', CHART_PATH, '-n', SYSTEM], {
        KUBECONFIG: kubeconfig(),
      });
      expect(direct.stderr).toMatch(/cannot be imported into the current release/);
      expect(await helmStatus('kubemod-ts')).not.toBe(0);
    }
  });

  it('runs the documented sequence to the end', async () => {
    const args = to === 'helm' ? ['--helm', CHART_PATH] : [bundlePath];
    const trace = await runScript('switch-from-kubemod.sh', args, { HELM: helm });
    if (from === 'chart') expect(trace).toContain('-l owner=helm,name=kubemod');
    else expect(trace).not.toContain('owner=helm');
    if (to === 'helm') expect(await helmStatus('kubemod-ts')).toBe(0);
  });

  it('keeps every ModRule byte for byte', async () => {
    expect(await modRuleBytes([namespace, SYSTEM])).toEqual(beforeBytes);
  });

  it("leaves none of KubeMod's objects and no release record of it", async () => {
    const leftovers = [
      ['deployment', 'kubemod', '-n', SYSTEM],
      ['serviceaccount', 'kubemod', '-n', SYSTEM],
      ['serviceaccount', 'kubemod-crt', '-n', SYSTEM],
      ...KUBEMOD_LEFTOVERS,
    ];
    for (const args of leftovers) expect(await exists(args), args.join(' ')).toBe(false);
    expect(await gone(['secret,configmap', '-n', SYSTEM, '-l', 'owner=helm,name=kubemod'])).toBe(
      true,
    );
    expect(await helmStatus('kubemod')).not.toBe(0);
  });

  it('ends with our objects: webhooks and Service select our operator Pods', async () => {
    if (to === 'bundle') {
      const diff = await kubectlDiff(['-f', bundlePath]);
      expect(diff.out).toBe('');
      expect(diff.code).toBe(0);
    }
    const release = to === 'helm' ? 'kubemod-ts' : undefined;
    for (const kind of ['mutatingwebhookconfiguration', 'validatingwebhookconfiguration']) {
      const name = kind.startsWith('mutating') ? MUTATING : VALIDATING;
      const config = (await kubectlJson(['get', kind, name])) as KubeObject;
      expect(config.metadata.annotations?.['meta.helm.sh/release-name']).toBe(release);
      expect(config.metadata.labels?.['app.kubernetes.io/part-of']).toBe('kubemod');
    }
    const service = (await kubectlJson([
      'get',
      'service',
      'kubemod-webhook-service',
      '-n',
      SYSTEM,
    ])) as {
      spec: { selector: Record<string, string> };
    };
    const deployment = (await kubectlJson([
      'get',
      'deployment',
      'kubemod-operator',
      '-n',
      SYSTEM,
    ])) as {
      spec: { template: { metadata: { labels: Record<string, string> } } };
    };
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
  });

  if (from === 'chart') {
    it('a later `helm uninstall kubemod` finds nothing and deletes none of ours', async () => {
      const result = await run(helm, ['uninstall', 'kubemod', '-n', SYSTEM], {
        KUBECONFIG: kubeconfig(),
      });
      expect(result.stderr).toMatch(/not found/);
      expect(await exists(['service', 'kubemod-webhook-service', '-n', SYSTEM])).toBe(true);
      expect(await exists(['mutatingwebhookconfiguration', MUTATING])).toBe(true);
      expect(await exists(['validatingwebhookconfiguration', VALIDATING])).toBe(true);
    });
  }

  if (to === 'helm') {
    it('`helm uninstall kubemod-ts` keeps the namespace, the CRD and every ModRule', async () => {
      const out = await helmOk(helm, ['uninstall', 'kubemod-ts', '-n', SYSTEM]);
      expect(out).toMatch(/kept due to the resource policy/);
      expect(await exists(['namespace', SYSTEM])).toBe(true);
      expect(await exists(['crd', 'modrules.api.kubemod.io'])).toBe(true);
      expect(await modRuleBytes([namespace, SYSTEM])).toEqual(beforeBytes);
      expect(await gone(['deployment', 'kubemod-operator', '-n', SYSTEM])).toBe(true);
      await kubectl(['get', 'namespace', SYSTEM]); // still served, not Terminating (exists above)
    });
  }
});
