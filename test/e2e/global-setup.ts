import type { TestProject } from 'vitest/node';
import { startControlPlane } from '../cluster/control-plane.js';

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
  }
}

/**
 * vitest globalSetup for the `e2e` project: uses the cluster in `$KUBECONFIG` if set, otherwise
 * starts a throwaway control plane with controllers, scheduler and Nodes
 * (test/cluster/control-plane.ts) and stops it afterwards.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.KUBECONFIG;
  if (external !== undefined && external !== '') {
    console.log(`[e2e] using the cluster from KUBECONFIG=${external}`);
    project.provide('kubeconfig', external);
    project.provide('localControlPlane', false);
    project.provide('harnessNodes', []);
    return () => Promise.resolve();
  }
  const controlPlane = await startControlPlane({ controllers: true });
  console.log(
    `[e2e] control plane ready at ${controlPlane.server} in ${String(controlPlane.startupMs)} ms, ` +
      `controllers and scheduler ${String(controlPlane.controllersStartupMs ?? 0)} ms later ` +
      `(nodes ${controlPlane.nodes.join(', ')}; kubeconfig ${controlPlane.kubeconfigPath})`,
  );
  project.provide('kubeconfig', controlPlane.kubeconfigPath);
  project.provide('localControlPlane', true);
  project.provide('harnessNodes', [...controlPlane.nodes]);
  return () => controlPlane.stop();
}
