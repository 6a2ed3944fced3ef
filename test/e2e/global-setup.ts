import type { TestProject } from 'vitest/node';
import { resolveControlPlaneBinaries, selectedKubernetesVersions } from '../cluster/binaries.js';
import { startControlPlane } from '../cluster/control-plane.js';
import type { KubernetesVersions } from '../cluster/kubernetes-versions.js';
import { useRunTmpdir } from '../unit/run-tmpdir.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the kubeconfig the e2e tests talk to. */
    kubeconfig: string;
    /**
     * True when the cluster is the local etcd + kube-apiserver harness, which can reach webhook
     * servers the tests start on 127.0.0.1; false for an external `$KUBECONFIG` cluster.
     */
    localControlPlane: boolean;
    /**
     * The Nodes of the local harness (registered Ready, no kubelet), which kube-scheduler binds
     * Pods to; empty for an external cluster.
     */
    harnessNodes: string[];
    /**
     * The Kubernetes versions the local harness runs ($KUBEMOD_K8S_VERSION,
     * $KUBEMOD_NODE_K8S_VERSION; default the newest supported); undefined for an external cluster.
     */
    kubernetesVersions: KubernetesVersions | undefined;
  }
}

/**
 * vitest globalSetup for the `e2e` project: uses the cluster in `$KUBECONFIG` if set, otherwise
 * starts a throwaway control plane with controllers, scheduler and Nodes
 * (test/cluster/control-plane.ts) and stops it afterwards. The run's temporary files go under one
 * directory, removed at the end (useRunTmpdir).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const removeTmpdir = useRunTmpdir('kubemod-ts-e2e-');
  const external = process.env.KUBECONFIG;
  if (external !== undefined && external !== '') {
    console.log(`[e2e] using the cluster from KUBECONFIG=${external}`);
    project.provide('kubeconfig', external);
    project.provide('localControlPlane', false);
    project.provide('harnessNodes', []);
    project.provide('kubernetesVersions', undefined);
    return () => {
      removeTmpdir();
      return Promise.resolve();
    };
  }
  const versions = selectedKubernetesVersions();
  const binaries = await resolveControlPlaneBinaries(versions);
  const controlPlane = await startControlPlane({ controllers: true, binaries });
  console.log(
    `[e2e] control plane ${versions.controlPlane} ready at ${controlPlane.server} in ${String(controlPlane.startupMs)} ms, ` +
      `controllers and scheduler ${String(controlPlane.controllersStartupMs ?? 0)} ms later ` +
      `(nodes ${controlPlane.nodes.join(', ')}; kubeconfig ${controlPlane.kubeconfigPath})`,
  );
  project.provide('kubeconfig', controlPlane.kubeconfigPath);
  project.provide('localControlPlane', true);
  project.provide('harnessNodes', [...controlPlane.nodes]);
  project.provide('kubernetesVersions', versions);
  return async () => {
    await controlPlane.stop();
    removeTmpdir();
  };
}
