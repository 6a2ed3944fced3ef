import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  availableKubernetesVersions,
  chooseKubernetesVersions,
  compareKubernetesVersions,
  kubernetesModuleDir,
  kubernetesVersionsEnv,
} from '../../cluster/kubernetes-versions.js';

const modulesRoot = fileURLToPath(new URL('../../cluster/kubernetes', import.meta.url));
const available = ['v1.35.4', 'v1.36.3', 'v1.37.2'];

describe('the Kubernetes versions of the harness', () => {
  it('orders release versions by minor, then patch', () => {
    expect(['v1.37.2', 'v1.9.1', 'v1.35.10', 'v1.35.4'].sort(compareKubernetesVersions)).toEqual([
      'v1.9.1',
      'v1.35.4',
      'v1.35.10',
      'v1.37.2',
    ]);
  });

  it.each([
    [{}, 'v1.37.2', 'v1.37.2'],
    [{ KUBEMOD_K8S_VERSION: 'v1.35.4' }, 'v1.35.4', 'v1.35.4'],
    [{ KUBEMOD_K8S_VERSION: '' }, 'v1.37.2', 'v1.37.2'],
    [{ KUBEMOD_NODE_K8S_VERSION: 'v1.35.4' }, 'v1.37.2', 'v1.35.4'],
    [{ KUBEMOD_K8S_VERSION: 'v1.36.3', KUBEMOD_NODE_K8S_VERSION: 'v1.35.4' }, 'v1.36.3', 'v1.35.4'],
  ])('chooses from %j: control plane %s, node %s', (env, controlPlane, node) => {
    expect(chooseKubernetesVersions(available, env)).toEqual({ controlPlane, node });
  });

  it.each([
    [
      { KUBEMOD_K8S_VERSION: 'v1.33.13' },
      /KUBEMOD_K8S_VERSION=v1\.33\.13: no wrapper module.*v1\.35\.4, v1\.36\.3, v1\.37\.2/,
    ],
    [{ KUBEMOD_K8S_VERSION: '1.37' }, /KUBEMOD_K8S_VERSION=1\.37: no wrapper module/],
    [
      { KUBEMOD_K8S_VERSION: 'v1.35.4', KUBEMOD_NODE_K8S_VERSION: 'v1.37.2' },
      /version skew policy/,
    ],
  ])('refuses %j', (env, message) => {
    expect(() => chooseKubernetesVersions(available, env)).toThrow(message);
  });

  it('refuses a kubelet more than three minors older than the API server', () => {
    expect(() =>
      chooseKubernetesVersions(['v1.33.1', 'v1.37.2'], { KUBEMOD_NODE_K8S_VERSION: 'v1.33.1' }),
    ).toThrow(/three minors older/);
  });

  it('passes the choice to the build scripts explicitly', () => {
    expect(kubernetesVersionsEnv({ controlPlane: 'v1.37.2', node: 'v1.35.4' })).toEqual({
      KUBEMOD_K8S_VERSION: 'v1.37.2',
      KUBEMOD_NODE_K8S_VERSION: 'v1.35.4',
    });
  });

  it('has a wrapper module per version that pins k8s.io/kubernetes and its staging modules there', () => {
    const versions = availableKubernetesVersions(modulesRoot);
    expect(versions.length).toBeGreaterThanOrEqual(2);
    for (const version of versions) {
      const goMod = readFileSync(join(kubernetesModuleDir(modulesRoot, version), 'go.mod'), 'utf8');
      expect(goMod).toMatch(
        new RegExp(
          `^\\s*k8s\\.io/kubernetes ${version.replace(/\./g, '\\.')}( // indirect)?$`,
          'm',
        ),
      );
      for (const cmd of [
        'kube-apiserver',
        'kube-controller-manager',
        'kube-scheduler',
        'kubelet',
        'kube-proxy',
      ]) {
        expect(goMod, `${version} ${cmd}`).toContain(`\tk8s.io/kubernetes/cmd/${cmd}\n`);
      }
      const staging = `v0.${version.slice('v1.'.length)}`;
      const replaced = [...goMod.matchAll(/^\s*(k8s\.io\/\S+) => \1 (\S+)$/gm)];
      expect(replaced.map((m) => m[1])).toContain('k8s.io/api');
      for (const m of replaced) expect(m[2], `${version} ${String(m[1])}`).toBe(staging);
    }
  });
});
