import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  builtInClusterScopedKinds,
  groupOf,
  isClusterScopedKind,
} from '../../src/engine/cluster/cluster-scoped-kinds.js';
import { kubectl } from './support/kubectl.js';

// Issue 39: offline paths decide where a namespace-less manifest lands from a table of the
// cluster-scoped kinds (src/engine/cluster/cluster-scoped-kinds.ts), since they have no
// discovery. Here the table meets a real API server's discovery: every cluster-scoped kind of a
// Kubernetes group the server serves is in it, and every kind of it the server serves is
// cluster-scoped there. Alpha groups the server does not enable are not served and not checked.

interface Served {
  readonly group: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

const root = join(import.meta.dirname, '..', '..');

/** `kubectl api-resources`: the last three columns are APIVERSION, NAMESPACED and KIND. */
async function discovery(): Promise<Served[]> {
  const out = await kubectl(['api-resources', '--no-headers']);
  return out
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map((cols) => ({
      group: groupOf(cols.at(-3) ?? ''),
      namespaced: cols.at(-2) === 'true',
      kind: cols.at(-1) ?? '',
    }));
}

function isKubernetesGroup(group: string): boolean {
  return (
    ['', 'apps', 'batch', 'autoscaling', 'policy'].includes(group) || group.endsWith('.k8s.io')
  );
}

describe('the cluster-scoped kinds table against discovery', () => {
  it('holds every cluster-scoped Kubernetes kind the API server serves, and nothing namespaced', async () => {
    const served = (await discovery()).filter((r) => isKubernetesGroup(r.group));
    expect(served.length).toBeGreaterThan(40);
    const missing = served
      .filter(
        (r) => !r.namespaced && !isClusterScopedKind(r.kind, `${r.group}/v1`.replace(/^\//, '')),
      )
      .map((r) => `${r.group}/${r.kind}`);
    expect(missing).toEqual([]);
    const table = new Set(builtInClusterScopedKinds().map((k) => `${k.group}/${k.kind}`));
    const wrong = served.filter((r) => r.namespaced && table.has(`${r.group}/${r.kind}`));
    expect(wrong).toEqual([]);
    // The commonest kinds of repositories are namespaced, and nothing in the table says otherwise.
    for (const kind of ['Pod', 'Deployment', 'ConfigMap', 'Service', 'Job', 'Role']) {
      expect(served.find((r) => r.kind === kind)?.namespaced, kind).toBe(true);
      expect(isClusterScopedKind(kind), kind).toBe(false);
    }
  });

  it("agrees with this project's CRDs", () => {
    for (const file of [
      'modrules.api.kubemod.io.yaml',
      'externaldataproviders.api.kubemod.io.yaml',
    ]) {
      const text = readFileSync(join(root, 'config', 'crd', file), 'utf8');
      const kind = /\n\s+kind: (\w+)\n/.exec(text.slice(text.indexOf('names:')))?.[1] ?? '';
      const scope = /\n\s+scope: (\w+)\n/.exec(text)?.[1];
      expect(isClusterScopedKind(kind, 'api.kubemod.io/v1beta1'), `${file}: ${kind}`).toBe(
        scope === 'Cluster',
      );
    }
  });
});
